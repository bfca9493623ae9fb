"""Fixtures shared by the whole suite."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(autouse=True)
def _clean_tqe_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test sees TQE_MONITOR_* variables from the developer's shell or another test."""
    for name in list(os.environ):
        if name.startswith("TQE_"):
            monkeypatch.delenv(name)
