"""The whole service for a test: the API in-process, a worker on a fresh task queue, the dev server and
the sandbox over HTTP. Helpers walk a channel's flow step by step."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
from opentelemetry.sdk.trace import TracerProvider
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from tests.support.app import ApiClient, make_settings
from worker import running_worker


class Stack(ApiClient):
    env: WorkflowEnvironment
    sandbox: str

    @classmethod
    @asynccontextmanager
    async def running(  # type: ignore[override]
        cls,
        data_dir: Path,
        db_url: str,
        env: WorkflowEnvironment,
        sandbox_url: str,
        *,
        smtp_port: int | None = None,
        temporal: Client | None = None,
        tracing: TracerProvider | None = None,
        **overrides: Any,
    ) -> AsyncIterator[Stack]:
        """`temporal`: a client of the test's own (e.g. with tracing) for the worker and the API alike."""
        if smtp_port is not None:  # the sandbox's SMTP sink, unless the test points elsewhere
            overrides = {"smtp_host": "127.0.0.1", "smtp_port": smtp_port, **overrides}
        settings = make_settings(
            data_dir,
            db_url,
            temporal_address=env.client.service_client.config.target_host,
            temporal_task_queue=f"lineup-test-{secrets.token_hex(4)}",
            carrier_base_url=f"{sandbox_url}/carrier",
            nlad_base_url=f"{sandbox_url}/nlad",
            payments_base_url=f"{sandbox_url}/payments",
            **overrides,
        )
        client = temporal or env.client
        async with (
            running_worker(settings, client),
            ApiClient.running(settings, temporal=client, tracing=tracing) as api,
        ):
            stack = cls(api.app, api.http)
            stack.env, stack.sandbox = env, sandbox_url
            try:
                yield stack
            finally:
                await stack.faults(fault_rate=0, latency_ms=0)
                await stack.sandbox_post("/sandbox/smtp", {"available": True})

    async def faults(self, **values: float) -> None:
        async with httpx.AsyncClient() as http:
            (await http.post(f"{self.sandbox}/sandbox/faults", json=values)).raise_for_status()

    async def sandbox_post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        async with httpx.AsyncClient() as http:
            answer: dict[str, Any] = (await http.post(f"{self.sandbox}{path}", json=body)).json()
            return answer

    async def mail_to(self, address: str) -> list[dict[str, Any]]:
        """What the sandbox's SMTP sink received for `address` (the sink is shared by the test session)."""
        async with httpx.AsyncClient() as http:
            response = await http.get(f"{self.sandbox}/sandbox/mail", params={"to": address})
            messages: list[dict[str, Any]] = response.raise_for_status().json()["messages"]
            return messages

    async def new_enrollment_id(self, zip_code: str = "30301") -> str:
        envelope = await self.call(
            "/enrollment",
            {"action": "check_service_availability", "source": "API", "agent_id": "demo.agent", "zip_code": zip_code},
        )
        assert envelope["msg_code"] == "RESTAPI000", envelope
        enrollment_id: str = envelope["data"]["enrollment_id"]
        return enrollment_id
