"""A secured Temporal: the API, the worker and `lineup temporal setup` connect through the TLS settings (server CA,
server name, client certificate for mutual TLS) and send LINEUP_TEMPORAL_API_KEY as a bearer token. The dev
server has no TLS of its own, so a TLS-terminating proxy stands in front of it (tests/support/tls_proxy.py)."""

from __future__ import annotations

import asyncio
import secrets
from typing import Any

import pytest
from pydantic import SecretStr, ValidationError
from typer.testing import CliRunner

from api.temporal import connect
from cli.main import app as cli
from models.settings import Settings
from models.types import with_check_digit
from tests.support.app import ApiClient, make_settings
from tests.support.builders import body
from tests.support.tls_proxy import SERVER_NAME, make_pki, tls_proxy
from worker import running_worker

DEVICE = body("check_device_compatibility", imei=with_check_digit("35209908123450"))


@pytest.fixture
def pki(tmp_path):
    return make_pki(tmp_path)


@pytest.fixture
def dev_server(temporal_env) -> str:
    address: str = temporal_env.client.service_client.config.target_host
    return address


def secured(data_dir, sqlite_url, sandbox_url, address: str, **tls) -> Settings:
    return make_settings(
        data_dir,
        sqlite_url,
        temporal_address=address,
        temporal_task_queue=f"lineup-tls-{secrets.token_hex(4)}",
        carrier_base_url=f"{sandbox_url}/carrier",
        **tls,
    )


async def check_device_through(settings: Settings) -> dict[str, Any]:
    """The worker and the API on clients made by orchestration.client.connect from `settings`; one lookup workflow."""
    worker_client, api_client = await connect(settings), await connect(settings)
    async with running_worker(settings, worker_client), ApiClient.running(settings, temporal=api_client) as api:
        answer: dict[str, Any] = await api.call("/inventory", DEVICE)
        return answer


async def test_with_the_ca_and_server_name_the_api_and_worker_run_a_workflow_over_tls(
    pki, dev_server, data_dir, sqlite_url, sandbox_url
):
    async with tls_proxy(dev_server, pki) as (address, headers):
        settings = secured(
            data_dir,
            sqlite_url,
            sandbox_url,
            address,
            temporal_tls_ca=str(pki.ca),
            temporal_tls_server_name=SERVER_NAME,
        )
        answer = await check_device_through(settings)
    assert (answer["msg_code"], answer["data"]["COMPATIBILITY"]) == ("RESTAPI000", "COMPATIBLE")
    assert "/temporal.api.workflowservice.v1.WorkflowService/PollWorkflowTaskQueue" in headers.values(":path")
    assert "/temporal.api.workflowservice.v1.WorkflowService/StartWorkflowExecution" in headers.values(":path")
    assert headers.values(":authority") and set(headers.values(":authority")) == {SERVER_NAME}
    assert headers.values("authorization") == []  # no API key set, none sent


async def test_without_the_ca_the_server_certificate_is_refused(pki, dev_server, data_dir, sqlite_url, sandbox_url):
    async with tls_proxy(dev_server, pki) as (address, headers):
        settings = secured(data_dir, sqlite_url, sandbox_url, address, temporal_tls_server_name=SERVER_NAME)
        with pytest.raises(RuntimeError, match=r"InvalidCertificate\(UnknownIssuer\)"):
            await connect(settings)
        plaintext = secured(data_dir, sqlite_url, sandbox_url, address)  # no TLS setting at all
        with pytest.raises(RuntimeError):
            await connect(plaintext)
    assert headers.seen == []  # nothing got through to the server


async def test_mutual_tls_needs_the_client_certificate(pki, dev_server, data_dir, sqlite_url, sandbox_url):
    async with tls_proxy(dev_server, pki, client_ca=pki.ca) as (address, _):
        server_only = {"temporal_tls_ca": str(pki.ca), "temporal_tls_server_name": SERVER_NAME}
        refused = secured(data_dir, sqlite_url, sandbox_url, address, **server_only)
        with pytest.raises(RuntimeError):
            await connect(refused)
        mutual = secured(
            data_dir,
            sqlite_url,
            sandbox_url,
            address,
            **server_only,
            temporal_tls_cert=str(pki.client_cert),
            temporal_tls_key=str(pki.client_key),
        )
        answer = await check_device_through(mutual)
    assert (answer["msg_code"], answer["data"]["COMPATIBILITY"]) == ("RESTAPI000", "COMPATIBLE")


async def test_the_api_key_is_sent_as_bearer_authorization_on_every_call(
    pki, dev_server, data_dir, sqlite_url, sandbox_url
):
    key = f"lineup-test-{secrets.token_hex(8)}"
    async with tls_proxy(dev_server, pki) as (address, headers):
        settings = secured(
            data_dir,
            sqlite_url,
            sandbox_url,
            address,
            temporal_tls_ca=str(pki.ca),
            temporal_tls_server_name=SERVER_NAME,
            temporal_api_key=SecretStr(key),
        )
        answer = await check_device_through(settings)
    assert answer["msg_code"] == "RESTAPI000"
    calls = headers.values(":path")
    assert len(calls) > 3 and headers.values("authorization") == [f"Bearer {key}"] * len(calls)


def test_an_api_key_alone_turns_tls_on_with_the_systems_trust_store(data_dir, sqlite_url):
    """Temporal Cloud: address and key are enough. The SDK enables TLS itself when tls is None and a key is set."""
    from api.temporal import tls_config

    settings = make_settings(data_dir, sqlite_url, temporal_api_key=SecretStr("k"))
    assert tls_config(settings) is None and settings.temporal.api_key.get_secret_value() == "k"
    with pytest.raises(ValidationError, match="LINEUP_TEMPORAL_TLS_CERT and LINEUP_TEMPORAL_TLS_KEY"):
        make_settings(data_dir, sqlite_url, temporal_tls_cert="client.pem")


async def test_lineup_temporal_setup_connects_with_the_tls_settings(pki, dev_server, data_dir, monkeypatch):
    async with tls_proxy(dev_server, pki, client_ca=pki.ca) as (address, headers):
        environment = {
            "LINEUP_DATA_DIR": str(data_dir),
            "LINEUP_TEMPORAL_ADDRESS": address,
            "LINEUP_TEMPORAL_TLS_CA": str(pki.ca),
            "LINEUP_TEMPORAL_TLS_SERVER_NAME": SERVER_NAME,
            "LINEUP_TEMPORAL_TLS_CERT": str(pki.client_cert),
            "LINEUP_TEMPORAL_TLS_KEY": str(pki.client_key),
            "LINEUP_TEMPORAL_API_KEY": "setup-key",
        }
        for name, value in environment.items():
            monkeypatch.setenv(name, value)
        monkeypatch.chdir(data_dir)  # no developer's .env
        from models.settings import get_settings

        get_settings.cache_clear()
        try:
            result = await asyncio.to_thread(CliRunner().invoke, cli, ["temporal", "setup"])
        finally:
            get_settings.cache_clear()
    assert result.exit_code == 0, result.output
    assert result.output.startswith("search attributes registered: ")
    assert "/temporal.api.operatorservice.v1.OperatorService/AddSearchAttributes" in headers.values(":path")
    assert set(headers.values("authorization")) == {"Bearer setup-key"}
