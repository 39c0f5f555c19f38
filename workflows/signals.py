"""Signals support staff send, shared by the API's /ops and the CLI."""

from __future__ import annotations

from temporalio.client import Client

from workflows.ids import line_workflow_id
from workflows.line import LineWorkflow


async def retry_line(client: Client, enrollment_id: str) -> None:
    await client.get_workflow_handle(line_workflow_id(enrollment_id)).signal(LineWorkflow.retry)
