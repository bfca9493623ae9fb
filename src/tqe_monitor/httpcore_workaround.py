"""Works around httpcore looking for `sniffio` on every request when it is not installed.

httpcore 1.0.x runs `import sniffio` inside `current_async_library()`, which it calls several
times per request. anyio >= 4.11 no longer depends on sniffio, so in a fresh install the module
is missing and Python, which does not remember failed imports, searches the whole `sys.path`
again each time: ~0.3 ms of CPU per request, a fifth of the daemon's cost per poll at 10,000
targets (encode/httpcore discussion #1102, PR #1103). Recording the module as absent in
`sys.modules` makes each later `import sniffio` fail at once, with the same ImportError that
httpcore already handles ("no sniffio: asyncio"), so nothing but the cost changes.
"""

from __future__ import annotations

import importlib.util
import sys


def remember_missing_sniffio() -> None:
    """If sniffio is not installed, make `import sniffio` fail fast from now on."""
    if "sniffio" in sys.modules:
        return
    if importlib.util.find_spec("sniffio") is None:
        # A None entry is the documented way to make an import raise ModuleNotFoundError.
        sys.modules["sniffio"] = None  # type: ignore[assignment]
