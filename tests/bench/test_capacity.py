"""docs/capacity.md's generator against a bench JSON: sample_bench.json is a real `make bench --quick` run, cut
down to what the document reads. The document regenerates from it; a figure or field it reads that is missing
fails; and every field it reads is one the bench's own figure writers still write."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from bench import capacity
from bench.__main__ import model_facts
from bench.costs import cpu_figure, footprint_figures
from bench.footprint import Footprint
from bench.load import LoadResult
from bench.pending_ports import Round, round_figures
from bench.stats import Figure
from bench.temporal_actions import Fetched, Sizes, Tally, poll_figure, size_figures, tally_figure, with_before
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
    actions = by_key[f"T8.{capacity.SQLITE}.newactivation_1"]["value"]
    assert f"| {capacity.number(actions)} | actions | `T8.{capacity.SQLITE}.newactivation_1` |" in text
    assert sample["started_utc"] in text


@pytest.mark.parametrize("key", ["T8.sqlite-1x1.poll", "T1.postgresql-1x1.plan_list", "T5.sqlite-1x1-ports.poll_round"])
def test_a_figure_the_bench_no_longer_writes_fails(sample: dict[str, Any], key: str) -> None:
    document = copy.deepcopy(sample)
    document["figures"] = [figure for figure in document["figures"] if figure["key"] != key]
    with pytest.raises(capacity.Drift, match=key):
        capacity.generate(document, SAMPLE.name)


def test_a_field_the_bench_no_longer_writes_fails(sample: dict[str, Any]) -> None:
    document = copy.deepcopy(sample)
    del document["pg_pool"]
    with pytest.raises(capacity.Drift, match="pg_pool"):
        capacity.generate(document, SAMPLE.name)


def written_figures() -> dict[str, dict[str, Any]]:
    """One figure of each kind the document reads, made by the writers the scenarios call, by key without the
    stack's name (`T7.cpu_enrollment`)."""
    ctx: Any = SimpleNamespace(db="DB", key=lambda target, name: f"{target}.stack.{name}")
    load = LoadResult("wrk", 5.0, 100, 90, 0, 0, 0, 0, 1.0, 2.0, 3.0)
    cpu = {"api": 1.0, "worker": 1.0, "temporal": 1.0, "postgresql": 1.0, "sandbox": 1.0}
    history = json.loads((SAMPLE.parents[1] / "workflows" / "histories" / "port_status_completed.json").read_text())
    fetched, tally, sizes = Fetched([history], 9_000, 53), Tally(), Sizes()
    tally.add([fetched], fetched.polls)
    sizes.add("PortStatusWorkflow", fetched)
    figures: list[Figure] = [
        *(load_figure(f"T1.stack.{call}", call, load, 1.0) for call in ("update_location_coordinate", "plan_list")),
        load_figure("T1.stack.floor", "floor", load, 1.0),
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
        *size_figures(ctx, sizes),
    ]
    return {figure.key.replace(".stack.", "."): dataclasses.asdict(figure) for figure in figures}


def test_every_field_the_document_reads_is_one_the_bench_writes(sample: dict[str, Any]) -> None:
    bench = capacity.Bench(sample)
    capacity.unit_costs(bench)
    capacity.per_enrollment(bench)
    written, facts = written_figures(), model_facts()
    for key, path in sorted(bench.reads):
        target, name = key.split(".")[0], key.split(".", 2)[-1]
        if "history_" in name:  # named after each workflow type, all by one writer
            name = "history_portstatusworkflow"
        found: Any = facts if key == "meta" else written.get(f"{target}.{name}")
        assert found is not None, f"no writer makes {key}"
        parts = path.split(".")
        depth = parts if key == "meta" else parts[:2]  # a role or a table name below extra comes from the run
        for part in depth:
            assert isinstance(found, dict) and part in found, f"the bench no longer writes {key} {path}"
            found = found[part]
