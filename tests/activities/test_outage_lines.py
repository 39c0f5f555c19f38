"""Lineup's own database away under an activity (issue 35, item 11): the worker's activities waited for it by
failing, each failure a traceback and a retry attempt spent, the log naming no workflow or activity. Now the
worker's interceptor waits it out within the attempt: one line naming the workflow and the activity, no
traceback, the attempt count unchanged; an attempt whose time runs out ends as the BENIGN outage it is."""

from __future__ import annotations

import logging
import secrets
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import text
from temporalio import activity, workflow
from temporalio.client import WorkflowFailureError
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError
from temporalio.testing import ActivityEnvironment
from temporalio.worker import UnsandboxedWorkflowRunner, Worker

from activities.registry import OutageInterceptor
from models.db import Database, database_outage
from models.enrollment.lines import hash_all
from models.envelope import DATABASE_UNAVAILABLE
from tests.support.database_outage import UNREACHABLE_DB


@workflow.defn(name="OutageProbeWorkflow")
class OutageProbeWorkflow:
    @workflow.run
    async def run(self, seconds: float) -> int:
        result: int = await workflow.execute_activity(
            "store_probe",
            start_to_close_timeout=timedelta(seconds=seconds),
            retry_policy=RetryPolicy(maximum_attempts=2),
        )
        return result


class Store:
    """Its database unreachable (a real refused connection) for the first `away` calls, then there."""

    def __init__(self, settings: Any, away: int) -> None:
        self.gone, self.there = Database(settings, UNREACHABLE_DB), Database(settings)
        self.away = away
        self.attempts: list[int] = []

    @activity.defn(name="store_probe")
    async def store(self) -> int:
        self.attempts.append(activity.info().attempt)
        db = self.gone if len(self.attempts) <= self.away else self.there
        async with db.transaction() as session:
            await session.rows(text("SELECT 1"))
        return len(self.attempts)

    async def close(self) -> None:
        await self.gone.dispose()
        await self.there.dispose()


async def probe(env: Any, store: Store, seconds: float) -> tuple[str, Any]:
    queue = f"outage-{secrets.token_hex(4)}"
    async with Worker(
        env.client,
        task_queue=queue,
        workflows=[OutageProbeWorkflow],
        activities=[store.store],
        interceptors=[OutageInterceptor()],
        workflow_runner=UnsandboxedWorkflowRunner(),  # the probe workflow beside this module's database imports
    ):
        try:
            return queue, await env.client.execute_workflow(
                OutageProbeWorkflow.run, seconds, id=queue, task_queue=queue
            )
        except WorkflowFailureError as failure:
            return queue, failure


def outage_records(caplog: pytest.LogCaptureFixture) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.levelno >= logging.WARNING and r.name.startswith(("lineup", "temporalio"))]


async def test_an_activity_whose_database_is_away_waits_within_its_attempt_with_one_line(
    temporal_env, settings, caplog
):
    store = Store(settings, away=3)
    caplog.set_level(logging.DEBUG)
    try:
        queue, result = await probe(temporal_env, store, seconds=30)
    finally:
        await store.close()
    assert result == 4
    assert store.attempts == [1, 1, 1, 1]  # tried again within attempt 1: no attempt spent
    [line] = outage_records(caplog)
    assert line.getMessage() == "database unavailable; the activity waits for it"
    fields = line.__dict__["fields"]
    assert (fields["workflow_id"], fields["workflow_type"], fields["activity"]) == (
        queue,
        "OutageProbeWorkflow",
        "store_probe",
    )
    assert not line.exc_info and "Traceback" not in caplog.text


async def test_an_attempt_whose_time_runs_out_ends_as_a_benign_outage(temporal_env, settings, caplog):
    store = Store(settings, away=10_000)
    caplog.set_level(logging.INFO)  # the SDK notes a BENIGN failure at DEBUG only
    try:
        _queue, result = await probe(temporal_env, store, seconds=3)
    finally:
        await store.close()
    assert isinstance(result, WorkflowFailureError) and isinstance(result.cause, ActivityError)
    cause = result.cause.cause
    assert isinstance(cause, ApplicationError) and cause.type == DATABASE_UNAVAILABLE
    assert set(store.attempts) == {1, 2}  # each attempt waited its time out
    assert len(outage_records(caplog)) == 2  # one line per attempt
    assert "Traceback" not in caplog.text


async def test_deferred_password_hashes_with_the_database_away_log_one_line_without_a_traceback(settings, caplog):
    gone = Database(settings, UNREACHABLE_DB)
    try:
        assert await hash_all(gone, None, [("E1", "line-pass-1"), ("E2", "line-pass-1")]) == 0  # type: ignore[arg-type]
    finally:
        await gone.dispose()
    [line] = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert line.getMessage() == "line passwords left pending" and not line.exc_info
    assert line.__dict__["fields"]["lines"] == 2


async def test_a_carrier_steps_database_outage_line_names_its_workflow_and_activity(settings, caplog):
    """The carrier steps turn the database away into their own failure (their workflow waits it out): its one
    line says which workflow and activity."""
    gone = Database(settings, UNREACHABLE_DB)

    async def step() -> None:
        async with database_outage(), gone.transaction() as session:
            await session.rows(text("SELECT 1"))

    info = replace(ActivityEnvironment.default_info(), workflow_id="line-E1", activity_type="activate_and_record")
    environment = ActivityEnvironment()
    environment.info = info
    try:
        with pytest.raises(ApplicationError) as raised:
            await environment.run(step)
    finally:
        await gone.dispose()
    assert raised.value.type == DATABASE_UNAVAILABLE
    [line] = [r for r in caplog.records if r.levelno >= logging.WARNING]
    fields = line.__dict__["fields"]
    assert (line.getMessage(), fields["workflow_id"], fields["activity"]) == (
        "database unavailable",
        "line-E1",
        "activate_and_record",
    )
    assert not line.exc_info
