"""docs/architecture.md's files to follow are the files the three calls run (tests.support.files_to_follow)."""

from __future__ import annotations

from tests.support.files_to_follow import SECTION, counts, measure, table


async def test_the_architecture_page_lists_the_files_each_call_runs(
    data_dir, sqlite_url, temporal_env, sandbox_url, sandbox_smtp_port
):
    measured = await measure(data_dir, sqlite_url, temporal_env, sandbox_url, sandbox_smtp_port)
    print(f"\n{counts(measured)}")  # the figures notes and issues quote (pytest -s shows them)
    create, location, retry = measured.values()
    # The trace follows the work into the worker's threads and its activities, to the carrier and back.
    assert {"workflows/enrollment.py", "activities/enrollment.py", "adapters/carrier.py"} <= set(create.worker)
    assert {"workflows/enrollment.py", "activities/enrollment.py", "adapters/carrier.py"} <= set(retry.worker)
    assert location.worker == [] and location.api[0] == "api/edge.py"
    assert not SECTION.stale(table(measured)), "run `make generate`"
