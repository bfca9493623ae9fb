"""Fixtures for the container tests: podman, a local python:3.11-slim, and the image itself.

There is no Docker engine or registry on these machines. `../shared/container/make-python-base.sh`
(beside the repository, in CI as on a developer machine) installs podman and builds a stand-in
for python:3.11-slim; the `podman` fixture runs it every session, which costs a second when both
are already there and about 90 s on a fresh machine. Only when that directory does not exist are
the image tests skipped, with the reason.

The image is built once per session from the working tree and used by its ID, not by its tag,
so two checkouts testing at once on a shared machine never run each other's image.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
SHARED_CONTAINER = REPO.parent / "shared" / "container"
BUILD_SECONDS = 1200.0  # a first build downloads the dependencies from the package index
COMMAND_SECONDS = 120.0


def _tail(text: str, lines: int = 40) -> str:
    return "\n".join(text.splitlines()[-lines:])


@dataclass(frozen=True)
class Podman:
    """Runs podman with the host's settings; a failure shows the command's own output."""

    env: dict[str, str]

    def __call__(
        self, *args: str, timeout: float = COMMAND_SECONDS, check: bool = True
    ) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            ["podman", *args],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if check and result.returncode != 0:
            raise AssertionError(
                f"podman {' '.join(args)} exited {result.returncode}\n"
                f"--- stdout\n{_tail(result.stdout)}\n--- stderr\n{_tail(result.stderr)}"
            )
        return result


@pytest.fixture(scope="session")
def podman() -> Podman:
    """podman, with python:3.11-slim present (built by the shared script when missing)."""
    script = SHARED_CONTAINER / "make-python-base.sh"
    if not script.is_file():
        pytest.skip(
            f"{SHARED_CONTAINER} does not exist: it provides podman and a local "
            "python:3.11-slim (no container registry is reachable), so the image cannot be built"
        )
    env = {name: value for name, value in os.environ.items() if not name.startswith("TQE_")}
    env["CONTAINERS_CONF"] = str(SHARED_CONTAINER / "containers.conf")
    result = subprocess.run(
        [str(script)], env=env, capture_output=True, text=True, timeout=BUILD_SECONDS, check=False
    )
    if result.returncode != 0:
        pytest.fail(
            f"{script} exited {result.returncode} (it needs root and apt on a fresh machine)\n"
            f"{_tail(result.stdout)}\n{_tail(result.stderr)}"
        )
    return Podman(env)


@pytest.fixture(scope="session")
def image(podman: Podman, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The ID of the image built from this working tree's Dockerfile."""
    iid = tmp_path_factory.mktemp("image") / "iid"
    podman(
        "build",
        "--format=docker",  # OCI image configs have no HEALTHCHECK
        f"--iidfile={iid}",
        "--tag=localhost/tqe-monitor:test",
        str(REPO),
        timeout=BUILD_SECONDS,
    )
    return iid.read_text().strip()


@pytest.fixture(scope="session")
def image_config(podman: Podman, image: str) -> dict[str, Any]:
    """`podman image inspect` of the image (Config, Healthcheck, Labels, Size...)."""
    document: list[dict[str, Any]] = json.loads(podman("image", "inspect", image).stdout)
    return document[0]


@dataclass
class Containers:
    """Hands out unique container names and removes every such container at teardown."""

    podman: Podman
    names: list[str] = field(default_factory=list)

    def new_name(self) -> str:
        name = f"tqe-monitor-test-{uuid.uuid4().hex[:12]}"
        self.names.append(name)
        return name

    def remove_all(self) -> None:
        for name in self.names:
            self.podman("rm", "--force", "--volumes", "--time=0", name, check=False)


@pytest.fixture
def containers(podman: Podman) -> Iterator[Containers]:
    created = Containers(podman)
    try:
        yield created
    finally:
        created.remove_all()


@pytest.fixture
def free_port() -> int:
    """A loopback port that was free a moment ago (the container binds it on the host network)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port
