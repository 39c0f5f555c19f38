"""The Grafana dashboard (deploy/grafana): the committed JSON is what deploy/grafana/dashboard.py generates with
grafanalib, and every query names a series Lineup exports (the metrics observability/ registers and the
scrape's database gauges) or the worker's Temporal SDK exports (read from a real worker's metrics endpoint)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import re
import secrets
from types import ModuleType

from prometheus_client.parser import text_string_to_metric_families

from bench.ports import free_port
from models.observability import Snapshot, exposition
from tests.support.app import make_settings
from tests.support.metrics import scrape
from tests.support.prometheus import ROOT
from worker import serve

GENERATOR = ROOT / "deploy" / "grafana" / "dashboard.py"
NAMES = re.compile(r"\b((?:lineup|temporal)_[a-z0-9_]+)")
SUFFIXES = re.compile(r"_(total|bucket|count|sum)$")


def generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("lineup_dashboard", GENERATOR)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def queried(document: str) -> set[str]:
    """The series every panel's query names, as families (no _total, _bucket, … suffix)."""
    exprs = [target["expr"] for panel in json.loads(document)["panels"] for target in panel.get("targets", [])]
    assert exprs
    return {SUFFIXES.sub("", name) for expr in exprs for name in NAMES.findall(expr)}


def families(text: str) -> set[str]:
    return {family.name for family in text_string_to_metric_families(text)}


def test_the_committed_dashboard_is_what_the_code_generates():
    committed = (ROOT / "deploy" / "grafana" / "lineup-dashboard.json").read_text()
    assert generator().rendered() == committed, "run: .venv/bin/python deploy/grafana/dashboard.py"


async def test_every_query_names_a_series_lineup_or_the_workers_sdk_exports(data_dir, sqlite_url, temporal_env):
    names = queried(generator().rendered())
    full = Snapshot(lines={"ACTIVE": 1}, ports_pending={"over_3d": 1}, workers_alive={"lineup": 1})
    lineup = families(exposition(full).decode())  # this process's registry and the database gauges
    missing = {name for name in names if name.startswith("lineup_")} - lineup
    assert not missing, f"the dashboard queries series Lineup does not export: {missing}"

    port = free_port()
    settings = make_settings(
        data_dir,
        sqlite_url,
        temporal_address=temporal_env.client.service_client.config.target_host,
        temporal_task_queue=f"lineup-test-{secrets.token_hex(4)}",
        worker_metrics_port=port,
        sweep_seconds=0,
    )
    stop = asyncio.Event()
    worker = asyncio.create_task(serve(settings, stop))
    try:
        wanted = {name for name in names if name.startswith("temporal_")}
        for _ in range(100):  # the pollers' series appear once the worker polls
            sdk = families(await scrape(port))
            if wanted <= sdk:
                break
            await asyncio.sleep(0.2)
    finally:
        stop.set()
        await worker
    missing = wanted - sdk
    assert not missing, f"the dashboard queries series the worker's SDK does not export: {missing}"
