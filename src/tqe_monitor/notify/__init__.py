"""Notifications: routing, messages, planning into the outbox, and delivery through Apprise."""

from tqe_monitor.notify.channels import (
    APPRISE_CONFIG_CHANNEL,
    AppriseChannel,
    Channel,
    SendResult,
    build_channels,
)
from tqe_monitor.notify.dispatcher import Dispatcher
from tqe_monitor.notify.notify_metrics import NotificationMetrics
from tqe_monitor.notify.planner import MessageSettings, Plan, Planner
from tqe_monitor.notify.routing import ChannelPolicy, Route, Router

__all__ = [
    "APPRISE_CONFIG_CHANNEL",
    "AppriseChannel",
    "Channel",
    "ChannelPolicy",
    "Dispatcher",
    "MessageSettings",
    "NotificationMetrics",
    "Plan",
    "Planner",
    "Route",
    "Router",
    "SendResult",
    "build_channels",
]
