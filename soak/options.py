"""What one soak run does: how long, how hard, which faults, where it keeps its files."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

# The soak's own PostgreSQL server (soak.postgres), which the rotation restarts; a URL uses that server instead and
# leaves it alone (the shared one on 5432 is never restarted).
DEFAULT_POSTGRES = ""
KILL_ORDER = ("worker", "api", "temporal", "postgres")


@dataclass(frozen=True)
class Options:
    minutes: float = 3.0
    channels: int = 8
    rate: float = 1.0  # orders started per second, over all channels
    kill_every: float = 45.0  # seconds between SIGKILLs (worker, API master, Temporal, PostgreSQL in turn); 0: none
    outage_seconds: float = 60.0  # carrier provisioning down this long, from a third of the run; 0: none
    port_complete_seconds: float = 20.0  # the sandbox's port-in completion time
    settle_minutes: float = 5.0  # how long to wait, after the load, for every accepted line to settle
    after_kill_seconds: float = 30.0  # create answers this close after a kill count as "after a kill"
    data_dir: Path = Path(".data/soak")
    postgres: str = DEFAULT_POSTGRES  # an administrative URL of a server to make the soak's database on; "": its own
    seed: int | None = None  # the load's random choices (lines per order, plan list or not)

    @property
    def seconds(self) -> float:
        return self.minutes * 60

    def kill_times(self) -> list[tuple[float, str]]:
        """(seconds into the load, kind): the first half a period in, then one per period, kinds in turn."""
        if self.kill_every <= 0:
            return []
        kinds = KILL_ORDER if self.own_postgres else tuple(kind for kind in KILL_ORDER if kind != "postgres")
        times: list[tuple[float, str]] = []
        at = self.kill_every / 2
        while at < self.seconds:
            times.append((at, kinds[len(times) % len(kinds)]))
            at += self.kill_every
        return times

    @property
    def own_postgres(self) -> bool:
        """The soak runs (and restarts) a PostgreSQL server of its own; a server it was given is never restarted."""
        return not self.postgres

    def outage(self) -> tuple[float, float] | None:
        """(start, end) of the carrier outage in seconds into the load, or None."""
        if self.outage_seconds <= 0:
            return None
        start = self.seconds / 3
        return start, min(self.seconds, start + self.outage_seconds)


def parse(argv: list[str] | None = None) -> Options:
    parser = argparse.ArgumentParser(
        prog="python -m soak",
        description="Production's processes under restart loops, ~1 enrollment a second from 8 channels, a SIGKILL "
        "every 45 s (a worker, the API, Temporal, PostgreSQL); then every accepted line must settle, exactly once.",
    )
    defaults = Options()
    parser.add_argument("--minutes", type=float, default=defaults.minutes, help="length of the load (default 3)")
    parser.add_argument("--channels", type=int, default=defaults.channels)
    parser.add_argument("--rate", type=float, default=defaults.rate, help="orders started per second")
    parser.add_argument("--kill-every", type=float, default=defaults.kill_every, help="seconds; 0 for no kills")
    parser.add_argument("--outage-seconds", type=float, default=defaults.outage_seconds, help="0 for none")
    parser.add_argument("--port-complete-seconds", type=float, default=defaults.port_complete_seconds)
    parser.add_argument("--settle-minutes", type=float, default=defaults.settle_minutes)
    parser.add_argument("--data-dir", type=Path, default=None, help="default .data/soak-<UTC time>")
    parser.add_argument(
        "--postgres",
        default=defaults.postgres,
        help="administrative URL of a PostgreSQL server to use (never restarted); default: a server of the soak's own",
    )
    parser.add_argument("--seed", type=int, default=None)
    found = parser.parse_args(argv)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return Options(
        minutes=found.minutes,
        channels=found.channels,
        rate=found.rate,
        kill_every=found.kill_every,
        outage_seconds=found.outage_seconds,
        port_complete_seconds=found.port_complete_seconds,
        settle_minutes=found.settle_minutes,
        data_dir=found.data_dir or Path(f".data/soak-{stamp}"),
        postgres=found.postgres,
        seed=found.seed,
    )
