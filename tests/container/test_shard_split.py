"""`--shard I/N`: n replicas of one config poll every target exactly once, and agree on it.

The assignment must be the same in every process (so not Python's salted `hash()`) and must not
change between releases (a change would move targets between replicas and their stores): the
exact formula is pinned here.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import structlog

from tqe_monitor.cli import build_parser, main
from tqe_monitor.logging_setup import QUIET_LIBRARIES
from tqe_monitor.sharding import ALL, Shard, shard_of
from tqe_monitor.simulator import Simulator, parse_scenario

NAMES = [f"target-{i:03d}" for i in range(400)] + ["production", "Übersetzung", "a", "A", ""]


@pytest.mark.parametrize("count", range(1, 8), ids=lambda n: f"n={n}")
def test_every_target_is_owned_by_exactly_one_shard(count: int) -> None:
    shards = [Shard(index, count) for index in range(count)]
    for name in NAMES:
        owners = [shard.index for shard in shards if shard.owns(name)]
        assert owners == [shard_of(name, count)], name
    selections = [shard.select(NAMES, lambda name: name) for shard in shards]
    assert sorted(name for selection in selections for name in selection) == sorted(NAMES)
    assert all(selections), "with 400 names every shard gets some"


@pytest.mark.parametrize(
    ("name", "count", "shard"),
    [
        pytest.param("production", 3, 0, id="production-of-3"),
        pytest.param("staging", 3, 0, id="staging-of-3"),
        pytest.param("customer-eu-042", 7, 1, id="customer-of-7"),
        pytest.param("Übersetzung", 5, 3, id="utf8-name-of-5"),
        pytest.param("a", 2, 1, id="a-of-2"),
        pytest.param("anything", 1, 0, id="one-shard-owns-all"),
    ],
)
def test_the_shard_is_sha256_of_the_name_modulo_the_count(
    name: str, count: int, shard: int
) -> None:
    assert shard_of(name, count) == shard


def test_the_assignment_does_not_depend_on_the_process_hash_seed() -> None:
    program = (
        "from tqe_monitor.sharding import shard_of; "
        "print([shard_of(f'target-{i}', 7) for i in range(200)])"
    )

    def assignment(seed: str) -> str:
        env = os.environ | {"PYTHONHASHSEED": seed}
        return subprocess.run(
            [sys.executable, "-c", program], env=env, capture_output=True, text=True, check=True
        ).stdout

    assert assignment("1") == assignment("4242")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("0/1", Shard(0, 1), id="single"),
        pytest.param("2/3", Shard(2, 3), id="last-of-three"),
        pytest.param(" 1/2 ", Shard(1, 2), id="spaces"),
    ],
)
def test_parse_accepts_index_slash_count(text: str, expected: Shard) -> None:
    assert Shard.parse(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("3/3", id="index-equals-count"),
        pytest.param("-1/3", id="negative-index"),
        pytest.param("0/0", id="zero-count"),
        pytest.param("1", id="no-slash"),
        pytest.param("1/", id="no-count"),
        pytest.param("/3", id="no-index"),
        pytest.param("1/3/5", id="two-slashes"),
        pytest.param("a/b", id="words"),
    ],
)
def test_parse_rejects_what_is_not_a_shard(text: str) -> None:
    with pytest.raises(ValueError, match=r"shard|INDEX/COUNT"):
        Shard.parse(text)


@pytest.mark.parametrize("command", ["run", "poll"])
def test_run_and_poll_take_a_shard_and_default_to_all_targets(command: str) -> None:
    parser = build_parser()
    assert parser.parse_args([command, "--shard", "1/3"]).shard == Shard(1, 3)
    assert parser.parse_args([command]).shard == ALL


def test_a_bad_shard_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        build_parser().parse_args(["poll", "--shard", "3/3"])
    assert exit_info.value.code == 2
    assert "--shard: the shard index must be between 0 and 2" in capsys.readouterr().err


# -- `tqe-monitor poll --shard` against the simulator --------------------------------------------

TARGETS = {f"team-{i:02d}": (f"tqe-shard-KEY-{i:02d}-c0ffee", 10_000 + i) for i in range(12)}


@pytest.fixture
async def simulator() -> AsyncIterator[Simulator]:
    keys = {key: {"balance": balance} for key, balance in TARGETS.values()}
    sim = Simulator(parse_scenario({"keys": keys}))
    await sim.start("127.0.0.1", 0)
    try:
        yield sim
    finally:
        await sim.stop()


@pytest.fixture(autouse=True)
def _restore_logging() -> Iterator[None]:
    """`poll` configures logging for the whole process onto the captured streams; put the
    previous configuration back so later tests do not write to a closed capture."""
    saved = structlog.get_config()
    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    quiet = {name: logging.getLogger(name).level for name in QUIET_LIBRARIES}
    yield
    structlog.configure(**saved)
    root.handlers[:] = handlers
    root.setLevel(level)
    for name, quiet_level in quiet.items():
        logging.getLogger(name).setLevel(quiet_level)


@pytest.mark.parametrize("count", [2, 3, 5], ids=lambda n: f"n={n}")
async def test_poll_shards_together_read_every_wallet_exactly_once(
    count: int, simulator: Simulator, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "tqe-monitor.yaml"
    config.write_text(
        json.dumps(
            {
                "storage": {"path": str(tmp_path / "unused.db")},
                "defaults": {"retries": 0, "timeout": "5s"},
                "targets": {
                    name: {"base_url": simulator.base_url, "api_key": key}
                    for name, (key, _) in TARGETS.items()
                },
            }
        )
    )
    read: dict[str, list[int]] = {}
    for index in range(count):
        capsys.readouterr()
        argv = ["poll", "--config", str(config), "--json", "--shard", f"{index}/{count}"]
        code = await asyncio.to_thread(main, [*argv, "--log-format", "json"])
        assert code == 0, capsys.readouterr().err
        wallets = json.loads(capsys.readouterr().out)["wallets"]
        polled = {wallet["target"] for wallet in wallets}
        assert polled == {name for name in TARGETS if shard_of(name, count) == index}
        for wallet in wallets:
            read.setdefault(wallet["target"], []).append(wallet["remaining_words"])

    assert read == {name: [balance] for name, (_, balance) in TARGETS.items()}
