"""The mapping dataclasses as the config module sees them: validated by pydantic, strictly."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter, ValidationError

from tqe_monitor.models import ComponentState
from tqe_monitor.normalizer import StatusMapping, WalletMapping


@pytest.mark.parametrize(
    ("mapping_type", "document"),
    [
        pytest.param(StatusMapping, {"platfrom": "data.platform"}, id="status-typo"),
        pytest.param(WalletMapping, {"remaining": "data.words"}, id="wallet-typo"),
        pytest.param(StatusMapping, {"states": {"green": "teal"}}, id="status-bad-state"),
    ],
)
def test_pydantic_rejects_unknown_fields_and_states(
    mapping_type: type[object], document: dict[str, object]
) -> None:
    with pytest.raises(ValidationError):
        TypeAdapter(mapping_type).validate_python(document)


def test_pydantic_builds_the_dataclass_with_enum_states() -> None:
    mapping = TypeAdapter(StatusMapping).validate_python(
        {"platform": "data.p", "states": {"Code Red": "maintenance"}}
    )

    assert mapping == StatusMapping(
        platform="data.p", states={"Code Red": ComponentState.MAINTENANCE}
    )
