"""Signals the API and the CLI send to running workflows: support's retry of a stuck line."""

from __future__ import annotations

from temporalio.client import Client

from workflows.enrollment.line import LineWorkflow
from workflows.ids import line_workflow_id


async def retry_line(client: Client, enrollment_id: str) -> None:
    await client.get_workflow_handle(line_workflow_id(enrollment_id)).signal(LineWorkflow.retry)
