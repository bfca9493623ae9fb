"""Allows `python -m tqe_monitor`, the same entry point as the `tqe-monitor` console script."""

import sys

from tqe_monitor.cli import main

sys.exit(main())
