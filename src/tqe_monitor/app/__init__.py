"""The only place that wires objects together: one function per command of the CLI.

The rest of the package is libraries that take what they need as arguments; here the real
clock, the real HTTP transport, the config file and the process's streams are chosen.
"""

from tqe_monitor.app.history import cmd_history
from tqe_monitor.app.notifytest import cmd_notify_test
from tqe_monitor.app.oneshot import cmd_check_config, cmd_poll
from tqe_monitor.app.processes import cmd_demo, cmd_run, cmd_simulate

__all__ = [
    "cmd_check_config",
    "cmd_demo",
    "cmd_history",
    "cmd_notify_test",
    "cmd_poll",
    "cmd_run",
    "cmd_simulate",
]
