"""Detection latency: from a state change in the simulator to /metrics showing it.

The AI service's state is flipped through the simulator's control API at random points of the
poll cycle, and /metrics is read every 100 ms until every service shows the new state. Each
observation keeps two bounds (the last read that did not show it, the first that did) and the
start of the poll that read the change (`tqe_service_state_since_timestamp_seconds`).
"""

from __future__ import annotations

import json
import math
import random
import statistics
import tempfile
import time
from pathlib import Path

from punctuality import parse_metrics
from rig import SERVICES, WALLET_INTERVAL, http, stack, wait_until


def _state_lines(text: str, component: str) -> dict[str, tuple[str | None, float | None]]:
    """service -> (current state of `component`, since timestamp), from a /metrics body."""
    states: dict[str, str] = {}
    since: dict[str, float] = {}
    for line in text.splitlines():
        if not line.startswith("tqe_service_state") or f'component="{component}"' not in line:
            continue
        service = line.split('service="', 1)[1].split('"', 1)[0]
        value = float(line.rsplit(" ", 1)[1])
        if line.startswith("tqe_service_state{") and value == 1.0:
            states[service] = line.split('tqe_service_state="', 1)[1].split('"', 1)[0]
        elif line.startswith("tqe_service_state_since_timestamp_seconds{"):
            since[service] = value
    return {s: (states.get(s), since.get(s)) for s in states.keys() | since.keys()}


def detection_run(targets: int, repeats: int, interval: float, seed: int) -> dict[str, object]:
    """Flip ai_service in the simulator; time until /metrics shows it, for every service."""
    workdir = Path(tempfile.mkdtemp(prefix="tqe-detect-"))
    print(f"[detection] {targets} targets, status every {interval:g}s, workdir {workdir}")
    services = [f"svc-{s}" for s in range(min(SERVICES, targets))]
    rng = random.Random(seed)
    flips: list[tuple[int, str, dict[str, dict[str, float]]]] = []
    with stack(workdir, targets, status_interval=interval, wallet_interval=WALLET_INTERVAL) as up:
        base = up.metrics_url.rsplit("/", 1)[0]
        wait_until(lambda: http(f"{base}/readyz").status == 200, "readiness", 120)
        state = "operational"
        for flip in range(repeats):
            time.sleep(rng.uniform(0.5, interval + 0.5))  # land anywhere in the poll cycle
            state = "degraded" if state == "operational" else "operational"
            body = json.dumps({"ai_service": state}).encode()
            sent = time.time()
            if http(f"{up.sim_url}/_sim/status", data=body).status != 200:
                raise RuntimeError("the simulator refused the state change")
            seen: dict[str, dict[str, float]] = {}
            not_seen_since = sent
            deadline = sent + 4 * interval + 10
            while len(seen) < len(services) and time.time() < deadline:
                fetched = http(up.metrics_url)
                done_at = fetched.started + fetched.seconds
                for service, (current, since) in _state_lines(
                    fetched.body.decode(), "ai_service"
                ).items():
                    if service in seen or current != state:
                        continue
                    seen[service] = {
                        "upper_s": done_at - sent,  # shown by then
                        "lower_s": not_seen_since - sent,  # not shown when this GET began
                        "poll_start_s": (since or math.nan) - sent,
                    }
                not_seen_since = fetched.started
                time.sleep(max(0.0, 0.1 - (time.time() - fetched.started)))
            flips.append((flip, state, seen))
            worst = max((v["upper_s"] for v in seen.values()), default=math.nan)
            print(f"[detection] flip {flip} -> {state}: {len(seen)} services, worst {worst:.2f}s")
        totals = parse_metrics(http(up.metrics_url).body.decode()).totals
        histogram = _status_duration(http(up.metrics_url).body.decode())
    observed = [v for _, _, seen in flips for v in seen.values()]
    uppers = [v["upper_s"] for v in observed]
    poll_starts = [v["poll_start_s"] for v in observed]
    missing = sum(len(services) - len(seen) for _, _, seen in flips)
    request_s = histogram["mean_s"]
    limit = interval + histogram["max_bucket"]
    return {
        "targets": targets,
        "status_interval_s": interval,
        "flips": repeats,
        "observations": len(observed),
        "not_detected": missing,
        # Seen in /metrics, flip to the first GET that showed it (includes up to 100 ms of our
        # own sampling and the GET itself, so an upper bound).
        "latency_median_s": round(statistics.median(uppers), 3),
        "latency_max_s": round(max(uppers), 3),
        "latency_lower_bound_max_s": round(max(v["lower_s"] for v in observed), 3),
        # From the flip to the start of the poll that read it (`since` of the new state): the
        # wait for the next poll, the part the schedule decides.
        "to_poll_start_median_s": round(statistics.median(poll_starts), 3),
        "to_poll_start_max_s": round(max(poll_starts), 3),
        "status_request_mean_s": round(request_s, 4),
        "status_request_max_bucket_s": histogram["max_bucket"],
        # One interval plus one request, the request taken at its histogram's upper bound.
        "limit_s": round(limit, 3),
        # The true latency of each observation lies between its two bounds.
        "surely_within_limit": sum(1 for v in observed if v["upper_s"] <= limit),
        "surely_over_limit": sum(1 for v in observed if v["lower_s"] > limit),
        "met": missing == 0
        and not any(v["lower_s"] > limit for v in observed)
        and max(poll_starts) + histogram["max_bucket"] <= limit,
        "errors": int(totals.get("errors:status", 0)),
        "detail": [{"flip": f, "to": to, "services": seen} for f, to, seen in flips],
    }


def _status_duration(text: str) -> dict[str, float]:
    """Mean status-poll duration and the smallest bucket bound that holds every status poll."""
    total = count = 0.0
    buckets: dict[float, float] = {}
    for line in text.splitlines():
        if 'endpoint="status"' not in line or not line.startswith("tqe_poll_duration_seconds"):
            continue
        value = float(line.rsplit(" ", 1)[1])
        if line.startswith("tqe_poll_duration_seconds_sum"):
            total += value
        elif line.startswith("tqe_poll_duration_seconds_count"):
            count += value
        elif line.startswith("tqe_poll_duration_seconds_bucket"):
            bound = float(line.split('le="', 1)[1].split('"', 1)[0])
            buckets[bound] = buckets.get(bound, 0.0) + value
    max_bucket = min((b for b, c in buckets.items() if c >= count), default=math.inf)
    return {"mean_s": total / count if count else math.nan, "max_bucket": max_bucket}
