"""docs/capacity.md's generator and docs/performance.md's block of the latest run (bench.goals) against a bench
JSON: sample_bench.json is a real `make bench --quick` run, cut down to what the documents read. They regenerate
from it; a figure or field they read that is missing fails; and every field they read is one the bench's own
figure writers still write."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bench import capacity, goals, reading
from bench.__main__ import model_facts
from bench.costs import cpu_figure, footprint_figures
from bench.footprint import Footprint
from bench.load import LoadResult
from bench.pending_ports import Round, round_figures
from bench.report import as_json
from bench.stats import Figure, Rounds, Window, latency_figure, rate_figure
from bench.temporal_actions import (
    Fetched,
    Sizes,
    Tally,
    poll_figure,
    size_figures,
    tally_figure,
    tasks_figure,
    with_before,
)
from bench.throughput import load_figure

SAMPLE = Path(__file__).with_name("sample_bench.json")


@pytest.fixture
def sample() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(SAMPLE.read_text())
    return document


def test_the_document_regenerates_from_a_bench_run(sample: dict[str, Any]) -> None:
    text = capacity.generate(sample, SAMPLE.name)
    for deployment in capacity.DEPLOYMENTS:
        assert f"## {deployment.name}" in text
    by_key = {figure["key"]: figure for figure in sample["figures"]}
    actions = by_key[f"T8.{reading.SQLITE}.newactivation_1"]["value"]
    assert f"| {reading.number(actions)} | actions | `T8.{reading.SQLITE}.newactivation_1` |" in text
    assert sample["started_utc"] in text


@pytest.mark.parametrize("key", ["T8.sqlite-1x1.poll", "T1.postgresql-1x1.plan_list", "T5.sqlite-1x1-ports.poll_round"])
def test_a_figure_the_bench_no_longer_writes_fails(sample: dict[str, Any], key: str) -> None:
    document = copy.deepcopy(sample)
    document["figures"] = [figure for figure in document["figures"] if figure["key"] != key]
    with pytest.raises(reading.Drift, match=key):
        capacity.generate(document, SAMPLE.name)


def test_the_issues_figures_stand_beside_their_baselines(sample: dict[str, Any]) -> None:
    """docs/performance.md's block and docs/capacity.md's first section: each figure, its baseline of the same run,
    the ratio and the bench's own verdict; the authenticated call against the shared floor."""
    block = goals.run_block(sample, SAMPLE.name)
    by_key = {figure["key"]: figure for figure in sample["figures"]}
    lineup, floor = (by_key[f"T1.{reading.SQLITE}.{name}"] for name in ("update_location_coordinate", "shared_floor"))
    row = next(line for line in block.splitlines() if line.startswith("| authenticated call, SQLite |"))
    assert f"| {lineup['value'] / floor['value']:.2f} | ratio ≥ 0.5 | {lineup['verdict']} |" in row
    assert "the floor of ../shared/bench" in row
    assert "\n".join(goals.section(reading.Bench(sample))) in capacity.generate(sample, SAMPLE.name)


def test_without_the_shared_floor_no_document_is_written(sample: dict[str, Any]) -> None:
    document = copy.deepcopy(sample)
    for figure in document["figures"]:
        if figure["key"] == f"T1.{reading.PG}.shared_floor":
            figure["value"] = None  # as the bench writes it when ../shared/bench is absent
    with pytest.raises(reading.Drift, match="shared_floor"):
        goals.run_block(document, SAMPLE.name)
    with pytest.raises(reading.Drift, match="shared_floor"):
        capacity.generate(document, SAMPLE.name)


def test_a_field_the_bench_no_longer_writes_fails(sample: dict[str, Any]) -> None:
    document = copy.deepcopy(sample)
    del document["pg_pool"]
    with pytest.raises(reading.Drift, match="pg_pool"):
        capacity.generate(document, SAMPLE.name)


def written_figures() -> dict[str, dict[str, Any]]:
    """One figure of each kind the document reads, made by the writers the scenarios call, by key without the
    stack's name (`T7.cpu_enrollment`)."""
    ctx: Any = SimpleNamespace(db="DB", key=lambda target, name: f"{target}.stack.{name}")
    rounds, window = Rounds([1.0, 2.0]), Window(1.0, completed=2, latencies=[1.0, 2.0])
    load = LoadResult("wrk", 5.0, 100, 90, 0, 0, 0, 0, 1.0, 2.0, 3.0)
    cpu = {"api": 1.0, "worker": 1.0, "temporal": 1.0, "postgresql": 1.0, "sandbox": 1.0}
    history = json.loads((SAMPLE.parents[1] / "workflows" / "histories" / "port_in_completed.json").read_text())
    fetched, tally, sizes = Fetched([history], 9_000, 53), Tally(), Sizes()
    tally.add([fetched], fetched.polls)
    sizes.add("line_portin", fetched)
    figures: list[Figure] = [
        *(
            load_figure(f"T1.stack.{call}", call, load, 1.0)
            for call in ("update_location_coordinate", "plan_list", "shared_floor")
        ),
        *(latency_figure(f"T2.stack.{name}", "T2", name, rounds) for name in ("update_with_start", "create_1")),
        latency_figure("T2.stack.create_10", "T2", "create_10", rounds),
        *(rate_figure(f"T3.stack.{name}", "T3", name, "lines", window) for name in ("one_activity_rate", "lines_rate")),
        cpu_figure(ctx, "T7", "enrollment", "enrollment", cpu, 10),
        cpu_figure(ctx, "T3", "line", "line", cpu, 10),
        *(cpu_figure(ctx, "T4", kind, kind, cpu, 10) for kind in ("device", "nlad")),
        *footprint_figures(ctx, "T7", "enrollment", Footprint({"line": 10}, {"line": 8192}), 10),
        *footprint_figures(ctx, "T3", "line", Footprint({"line": 10}, {"line": 8192}), 10),
        *round_figures(ctx, Round(10, polled=10, seconds=1.0, cpu={"worker": 1.0, "temporal": 1.0})),
        *with_before(
            ctx,
            [
                *(
                    tally_figure(ctx, name, name, tally)
                    for name in ("newactivation_1", "portin", "device", "nlad", "inquiry")
                ),
                poll_figure(ctx, "poll", "poll", tally),
            ],
        ),
        tasks_figure(ctx, "newactivation_1", "line", tally),
        *size_figures(ctx, sizes),
    ]
    by_key = {figure.key: figure for figure in figures}
    return {figure.key.replace(".stack.", "."): as_json(figure, by_key) for figure in figures}


def test_every_field_the_document_reads_is_one_the_bench_writes(sample: dict[str, Any]) -> None:
    bench = reading.Bench(sample)
    capacity.unit_costs(bench)
    capacity.per_enrollment(bench)
    goals.section(bench)
    written, facts = written_figures(), model_facts()
    for key, path in sorted(bench.reads):
        target, name = key.split(".")[0], key.split(".", 2)[-1]
        if name.startswith("history_"):  # one per workflow role, all by one writer
            name = "history_line_portin"
        found: Any = facts if key == "meta" else written.get(f"{target}.{name}")
        assert found is not None, f"no writer makes {key}"
        parts = path.split(".")
        depth = parts if key == "meta" else parts[:2]  # a role or a table name below extra comes from the run
        for part in depth:
            assert isinstance(found, dict) and part in found, f"the bench no longer writes {key} {path}"
            found = found[part]
