"""Splitting the targets of one config across several processes: `--shard INDEX/COUNT`.

Every replica reads the same config and keeps only the targets whose shard is its own, so n
replicas started with `--shard 0/n` ... `--shard n-1/n` poll every target exactly once, with no
coordination between them.

The shard of a target is `int(sha256(name).hexdigest(), 16) % count`. A cryptographic digest,
not Python's `hash()`: that one is salted per process (PYTHONHASHSEED), so two replicas would
disagree about who owns what and targets would be polled twice or never. The formula is simple
enough to reproduce in a shell or another language to find which replica holds a target.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TypeVar

T = TypeVar("T")


def shard_of(name: str, count: int) -> int:
    """The shard (0 .. count-1) that owns the target called `name`."""
    if count < 1:
        raise ValueError("the shard count must be at least 1")
    digest = hashlib.sha256(name.encode("utf-8")).digest()
    return int.from_bytes(digest, "big") % count


@dataclass(frozen=True)
class Shard:
    """One replica's share: shard `index` of `count` (0-based, like StatefulSet ordinals)."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if self.count < 1:
            raise ValueError(f"the shard count must be at least 1, not {self.count}")
        if not 0 <= self.index < self.count:
            raise ValueError(
                f"the shard index must be between 0 and {self.count - 1}, not {self.index}"
            )

    @classmethod
    def parse(cls, text: str) -> Shard:
        """'1/3' -> Shard(index=1, count=3). Raises ValueError with a readable message."""
        index, slash, count = text.strip().partition("/")
        if not slash or not index.strip().isdigit() or not count.strip().isdigit():
            raise ValueError(f"expected INDEX/COUNT such as 0/3, not {text!r}")
        return cls(int(index), int(count))

    def owns(self, name: str) -> bool:
        """Whether the target called `name` is polled by this shard."""
        return shard_of(name, self.count) == self.index

    def select(self, items: Iterable[T], name: Callable[[T], str]) -> list[T]:
        """The items (in their order) whose name this shard owns."""
        return [item for item in items if self.owns(name(item))]

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


ALL = Shard(0, 1)
"""The single shard of an unsharded process: it owns every target."""

__all__ = ["ALL", "Shard", "shard_of"]
