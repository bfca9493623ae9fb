"""Pure state tracking: turns a stream of poll outcomes into states, transitions and conditions.

No I/O here and no clock: every method takes `now`, so the tests can walk through time step by
step and a restart can replay stored state.
"""

from tqe_monitor.tracking.components import ComponentTracker, StateChange

__all__ = ["ComponentTracker", "StateChange"]
