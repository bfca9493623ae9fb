"""Pure analysis for the scale benchmark: read /metrics scrapes, judge whether polls were on time.

The daemon does not log each poll, but every poll stamps `tqe_last_poll_timestamp_seconds` with
the moment it started. Scraping more often than the shortest poll interval therefore observes
every poll's start time: a value lives for a whole interval before the next poll overwrites it.

Each job runs on a fixed grid (APScheduler's IntervalTrigger: start + offset + k * interval; a
late run does not shift later ones), so a poll's lateness is its start minus its grid slot:

    due(job, k) = T0 + offset(job) + k * interval

`offset` is the scheduler's own stagger (imported, so the benchmark follows any change to it) and
T0, the scheduler's start, is estimated as the earliest `start - offset - k * interval` over all
polls: a run can be late but never early, so the least-late poll of thousands sits on the grid
within a few milliseconds. A slot that is due before the end of observation but has no poll is
missed. Nothing here does I/O, so it can be tested with made-up scrapes.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from tqe_monitor.scheduler import PollJob, stagger_offsets

LAST_POLL = "tqe_last_poll_timestamp_seconds"
_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)")
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')
_WANTED = (LAST_POLL, "tqe_poll_duration_seconds", "tqe_poll_overruns", "tqe_poll_errors")

JobKey = tuple[str, str, str]  # (service, target, endpoint); target is "" for status


@dataclass
class ParsedScrape:
    """What the benchmark needs from one /metrics body."""

    last_poll: dict[JobKey, float] = field(default_factory=dict)
    # Totals summed over services, keyed like "polls:wallet", "slow:status", "overruns:wallet".
    totals: dict[str, float] = field(default_factory=dict)


def parse_metrics(text: str, slow_bucket: str = "2.5") -> ParsedScrape:
    """Pick the poll-related samples out of a Prometheus text body.

    `totals` holds, per endpoint: polls done (histogram count), slow polls (count minus the
    `le=slow_bucket` bucket), errors and overruns.
    """
    parsed = ParsedScrape()
    totals = parsed.totals
    for line in text.splitlines():
        if not line.startswith(_WANTED):
            continue
        match = _SAMPLE.match(line)
        if match is None:
            continue
        name, label_text, value_text = match.groups()
        labels = dict(_LABEL.findall(label_text or ""))
        value = float(value_text)
        endpoint = labels.get("endpoint", "")
        if name == LAST_POLL:
            parsed.last_poll[(labels["service"], labels["target"], endpoint)] = value
        elif name == "tqe_poll_duration_seconds_count":
            _add(totals, f"polls:{endpoint}", value)
            _add(totals, f"slow:{endpoint}", value)
        elif name == "tqe_poll_duration_seconds_bucket" and labels.get("le") == slow_bucket:
            _add(totals, f"slow:{endpoint}", -value)
        elif name == "tqe_poll_overruns_total":
            _add(totals, f"overruns:{endpoint}", value)
        elif name == "tqe_poll_errors_total":
            _add(totals, f"errors:{endpoint}", value)
    return parsed


def _add(totals: dict[str, float], key: str, value: float) -> None:
    totals[key] = totals.get(key, 0.0) + value


def collect_polls(scrapes: Iterable[Mapping[JobKey, float]]) -> dict[JobKey, list[float]]:
    """Every distinct poll start seen per job, in order (a value repeats until the next poll)."""
    seen: dict[JobKey, set[float]] = {}
    for scrape in scrapes:
        for key, value in scrape.items():
            seen.setdefault(key, set()).add(value)
    return {key: sorted(values) for key, values in seen.items()}


def job_id(key: JobKey) -> str:
    """The scheduler's id for a job, as `Monitor.jobs()` names them."""
    service, target, endpoint = key
    return f"status:{service}" if endpoint == "status" else f"wallet:{target}"


async def _never_run() -> None:  # pragma: no cover - the jobs are only used for their offsets
    return None


def expected_offsets(intervals: Mapping[JobKey, float]) -> dict[JobKey, float]:
    """The scheduler's start offset of each job, computed by the scheduler's own function."""
    jobs = [
        PollJob(job_id(key), key[0], key[2], interval, interval, _never_run)
        for key, interval in intervals.items()
    ]
    offsets = stagger_offsets(jobs)
    return {key: offsets[job_id(key)] for key in intervals}


@dataclass(frozen=True)
class Punctuality:
    """How the polls due in the observed window went."""

    due: int  # grid slots due between T0 and the cut-off
    on_time: int  # done, started at most `late_after` s after the slot
    late: int  # done, but later than that
    missed: int  # no poll for the slot
    extra: int  # polls that fall on an already-used slot (should be 0)
    lateness_p50: float
    lateness_p99: float
    lateness_max: float
    t0: float

    def as_dict(self) -> dict[str, float | int]:
        return dict(self.__dict__)


def judge(
    polls: Mapping[JobKey, list[float]],
    intervals: Mapping[JobKey, float],
    cutoff: float,
    *,
    late_after: float = 2.0,
) -> Punctuality:
    """Compare observed poll starts with the grid, for slots due at or before `cutoff`.

    `intervals` lists every configured job (a job never seen has all its slots missed); `cutoff`
    must be early enough that a poll done on time for a slot due then was observed.
    """
    offsets = expected_offsets(intervals)
    candidates = [
        start - offsets[key] - _slot(start - starts[0], intervals[key])
        for key, starts in polls.items()
        if key in intervals and starts
        for start in starts
    ]
    if not candidates:
        raise ValueError("no polls were observed")
    t0 = min(candidates)
    due = on_time = late = missed = extra = 0
    lateness: list[float] = []
    for key, interval in intervals.items():
        first_due = t0 + offsets[key]
        slots = math.floor((cutoff - first_due) / interval) + 1 if cutoff >= first_due else 0
        done: dict[int, float] = {}
        for start in polls.get(key, []):
            slot = math.floor((start - first_due) / interval + 0.5)
            if slot in done:
                extra += 1
                continue
            done[slot] = start - (first_due + slot * interval)
        for slot in range(slots):
            due += 1
            if slot not in done:
                missed += 1
                continue
            lateness.append(done[slot])
            if done[slot] > late_after:
                late += 1
            else:
                on_time += 1
    lateness.sort()
    return Punctuality(
        due=due,
        on_time=on_time,
        late=late,
        missed=missed,
        extra=extra,
        lateness_p50=_quantile(lateness, 0.5),
        lateness_p99=_quantile(lateness, 0.99),
        lateness_max=lateness[-1] if lateness else math.nan,
        t0=t0,
    )


def _slot(delta: float, interval: float) -> float:
    """The whole number of intervals closest to `delta`, in seconds."""
    return math.floor(delta / interval + 0.5) * interval


def _quantile(ordered: list[float], q: float) -> float:
    if not ordered:
        return math.nan
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)]
