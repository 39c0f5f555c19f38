"""Signals the API and the CLI send to running workflows: support's retry of a stuck line."""

from __future__ import annotations

from temporalio.client import Client

from models.tables.enrollment import Line
from workflows.enrollment.line import LineWorkflow
from workflows.ids import line_workflow_id, port_workflow_id
from workflows.porting import PortInWorkflow


async def retry_line(client: Client, line: Line) -> None:
    """A PORTIN line is stuck submitting its port (PortInWorkflow's step); any other on its activation."""
    if line.activation_type == "PORTIN":
        await client.get_workflow_handle(port_workflow_id(line.enrollment_id)).signal(PortInWorkflow.retry)
    else:
        await client.get_workflow_handle(line_workflow_id(line.enrollment_id)).signal(LineWorkflow.retry)
