"""What a write-then-start pair leaves behind when Temporal is away (rows stored, no workflow started), and the
sweep that starts it: requests through an API whose Temporal is unreachable, and a sweep run at once."""

from __future__ import annotations

import secrets
from typing import Any

from models.enrollment.lines import Pacing
from models.support import Sweep
from tests.support.app import ApiClient
from tests.support.builders import create, line
from workflows.support import SweepWorkflow

NOW = Sweep(grace_seconds=0, token_retention_hours=24, pacing=Pacing())


def settings_of(stack):
    return stack.app.state.resources.settings


async def sweep_now(stack, sweep: Sweep = NOW):
    return await stack.env.client.execute_workflow(
        SweepWorkflow.run, sweep, id=f"sweep-{secrets.token_hex(4)}", task_queue=settings_of(stack).temporal.task_queue
    )


async def while_temporal_is_away(stack, path: str, request: dict[str, Any]) -> dict[str, Any]:
    """The request through an API whose Temporal is unreachable: its rows are stored, no workflow starts."""
    away = settings_of(stack).replaced(**{"temporal_address": "127.0.0.1:1", "sync_wait_seconds": 1})
    async with ApiClient.running(away) as api:
        answer: dict[str, Any] = await api.call(path, request)
        return answer


async def created_while_temporal_was_away(stack) -> list[str]:
    parent, second = await stack.new_enrollment_id(), await stack.new_enrollment_id()
    answer = await while_temporal_is_away(stack, "/customer", create(parent, line(parent), line(second)))
    assert answer["msg_code"] != "RESTAPI000", answer
    return [parent, second]
