"""`lineup run` with several processes: each worker serves its metrics on its own port, and the API
processes share one emptied PROMETHEUS_MULTIPROC_DIR so /metrics counts every process's requests."""

from __future__ import annotations

from pathlib import Path

from cli.run import child_environments, worker_names
from tests.support.app import make_settings


def settings_for(data_dir: Path, **overrides):
    return make_settings(data_dir, f"sqlite+aiosqlite:///{data_dir}/lineup.db", **overrides)


def test_one_worker_and_one_api_process_keep_the_settings_as_they_are(data_dir):
    assert child_environments(settings_for(data_dir)) == {}


def test_each_worker_gets_its_own_metrics_port(data_dir):
    settings = settings_for(data_dir, worker_processes=3, worker_metrics_port=9464)
    env = child_environments(settings)
    assert worker_names(settings) == ["worker-1", "worker-2", "worker-3"]
    assert [env[name]["LINEUP_WORKER_METRICS_PORT"] for name in worker_names(settings)] == ["9464", "9465", "9466"]


def test_worker_metrics_off_stay_off_for_every_worker(data_dir):
    assert child_environments(settings_for(data_dir, worker_processes=2, worker_metrics_port=0)) == {}


def test_several_api_processes_share_an_emptied_multiprocess_directory(data_dir):
    stale = data_dir / "metrics" / "counter_1234.db"
    stale.parent.mkdir()
    stale.write_bytes(b"left by an earlier run")
    env = child_environments(settings_for(data_dir, api_processes=2))
    assert env == {"api": {"PROMETHEUS_MULTIPROC_DIR": str(data_dir / "metrics")}}
    assert list((data_dir / "metrics").iterdir()) == []
