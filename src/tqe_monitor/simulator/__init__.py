"""A faithful fake of the TQE service's /v2 API, for the demo, the tests and the benchmark.

Self-contained on purpose: it imports nothing from the monitor, so it stays an outside view of
the service rather than a mirror of the monitor's assumptions.

    simulator = Simulator(builtin_scenario("demo"))
    await simulator.start()                 # port 0: any free port
    simulator.base_url                      # http://127.0.0.1:PORT/v2
    simulator.add_fault("status", "rate_limited", count=2, retry_after=3)
    await simulator.stop()

Modules: `scenario` (the scenario file format), `state` (the pure simulated world), `shapes`
(payload shapes), `checker` (POST /check), `server` (HTTP), `control` (the /_sim/ control API).
"""

from tqe_monitor.simulator.actions import Action, FaultSpec
from tqe_monitor.simulator.scenario import (
    BUILTIN_SCENARIOS,
    KeySpec,
    Scenario,
    ScenarioError,
    TimelineEvent,
    builtin_scenario,
    load_scenario,
    parse_scenario,
)
from tqe_monitor.simulator.server import Simulator, serve
from tqe_monitor.simulator.state import World
from tqe_monitor.simulator.vocabulary import (
    Component,
    Endpoint,
    FaultKind,
    InvalidInput,
    Shape,
    State,
)

__all__ = [
    "BUILTIN_SCENARIOS",
    "Action",
    "Component",
    "Endpoint",
    "FaultKind",
    "FaultSpec",
    "InvalidInput",
    "KeySpec",
    "Scenario",
    "ScenarioError",
    "Shape",
    "Simulator",
    "State",
    "TimelineEvent",
    "World",
    "builtin_scenario",
    "load_scenario",
    "parse_scenario",
    "serve",
]
