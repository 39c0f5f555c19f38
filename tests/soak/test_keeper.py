"""The soak's restart loop, as systemd's Restart=always with RestartSec=1 and KillMode=control-group: a killed
process starts again about a second later, and what was left of its group is stopped first."""

from __future__ import annotations

import sys
import time
from pathlib import Path

from soak.keeper import RESTART_SECONDS, Keeper, group_members

# A parent that starts a child in its own process group and sleeps: the child is the leftover once the parent dies.
PARENT_WITH_CHILD = "import subprocess, time; subprocess.Popen(['sleep', '300']); time.sleep(300)"


def tick_until(keeper: Keeper, condition, timeout: float = 15.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        keeper.tick()
        if condition():
            return True
        time.sleep(0.05)
    return False


def test_a_killed_process_is_restarted_after_the_delay_and_its_leftovers_stopped(tmp_path: Path):
    keeper = Keeper(tmp_path / "logs")
    service = keeper.add("svc", [sys.executable, "-c", PARENT_WITH_CHILD], {})
    try:
        assert service.process is not None
        first = service.process.pid
        assert tick_until(keeper, lambda: len(group_members(first)) == 2)
        killed_at = time.monotonic()
        keeper.kill("svc")
        assert tick_until(keeper, lambda: service.starts == 2)
        assert time.monotonic() - killed_at >= RESTART_SECONDS
        assert group_members(first) == []  # the sleeping child was stopped before the restart
        [exit_] = keeper.exits
        assert (exit_.service, exit_.code, exit_.leftovers) == ("svc", -9, 1)
        assert keeper.running("svc") and service.process.pid != first
    finally:
        keeper.stop()
    assert not keeper.running("svc")
    assert group_members(service.process.pid) == []
