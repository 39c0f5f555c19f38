"""The codec endpoint (api/codec.py): Temporal's codec server protocol over HTTP, for operators who hold the key.
Workflow payloads are encrypted (orchestration.codec); the endpoint decodes them for the Temporal UI and the CLI,
only with the bearer token of LINEUP_CODEC_TOKEN, and lets only the UI's origins call it from a browser."""

from __future__ import annotations

import base64
import json
import secrets
from typing import Any

import pytest
from google.protobuf.json_format import MessageToDict
from temporalio.api.common.v1 import Payload, Payloads
from temporalio.converter import default

from models.crypto import PayloadCipher
from tests.support.builders import body
from tests.support.keys import KEY_BYTES

TOKEN = "codec-" + secrets.token_hex(8)
ON = {"codec_token": TOKEN, "codec_origins": "http://ui.example:8233"}
BEARER = {"Authorization": f"Bearer {TOKEN}"}
UI = "http://ui.example:8233"


def payloads_json(*payloads: Payload) -> dict[str, Any]:
    return MessageToDict(Payloads(payloads=list(payloads)))


def plain(value: object) -> Payload:
    [payload] = default().payload_converter.to_payloads([value])
    return payload


def values(answer: dict[str, Any]) -> list[object]:
    return [json.loads(base64.b64decode(item["data"])) for item in answer["payloads"]]


def encodings(answer: dict[str, Any]) -> list[str]:
    return [base64.b64decode(item["metadata"]["encoding"]).decode() for item in answer["payloads"]]


async def test_the_codec_endpoint_is_off_without_a_token(api):
    response = await api.http.post("/codec/decode", json=payloads_json(plain("x")), headers=BEARER)
    assert response.status_code == 404
    assert response.json()["msg"] == "The codec endpoint is off (LINEUP_CODEC_TOKEN)"


@pytest.mark.parametrize("settings_overrides", [ON])
async def test_encode_then_decode_round_trips_and_encode_hides_the_value(api):
    encoded = (await api.http.post("/codec/encode", json=payloads_json(plain("2125550147")), headers=BEARER)).json()
    assert encodings(encoded) == ["binary/encrypted"]
    assert b"2125550147" not in base64.b64decode(encoded["payloads"][0]["data"])
    decoded = (await api.http.post("/codec/decode", json=encoded, headers=BEARER)).json()
    assert (encodings(decoded), values(decoded)) == (["json/plain"], ["2125550147"])


@pytest.mark.parametrize("settings_overrides", [ON])
async def test_decode_passes_payloads_written_before_encryption_through(api):
    answer = (await api.http.post("/codec/decode", json=payloads_json(plain({"a": 1})), headers=BEARER)).json()
    assert (encodings(answer), values(answer)) == (["json/plain"], [{"a": 1}])


@pytest.mark.parametrize("settings_overrides", [ON])
@pytest.mark.parametrize(
    "headers", [{}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}], ids=["none", "wrong", "not-bearer"]
)
async def test_the_codec_endpoint_needs_the_bearer_token(api, headers):
    sealed = PayloadCipher(KEY_BYTES).seal(plain("2125550147"))
    response = await api.http.post("/codec/decode", json=payloads_json(sealed), headers=headers)
    assert (response.status_code, response.json()["msg"]) == (401, "Unauthorized")
    assert "2125550147" not in response.text


@pytest.mark.parametrize("settings_overrides", [ON])
async def test_the_temporal_uis_origin_gets_cors_and_another_origin_is_refused(api):
    preflight = await api.http.options(
        "/codec/decode",
        headers={
            "Origin": UI,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type,x-namespace,authorization",
        },
    )
    assert preflight.status_code == 204
    assert preflight.headers["access-control-allow-origin"] == UI
    assert preflight.headers["access-control-allow-credentials"] == "true"
    assert "Authorization" in preflight.headers["access-control-allow-headers"]
    called = await api.http.post(
        "/codec/decode", json=payloads_json(plain(1)), headers={**BEARER, "Origin": UI, "X-Namespace": "default"}
    )
    assert (called.status_code, called.headers["access-control-allow-origin"]) == (200, UI)

    foreign = await api.http.options("/codec/decode", headers={"Origin": "http://evil.example"})
    assert foreign.status_code == 403 and "access-control-allow-origin" not in foreign.headers
    posted = await api.http.post(
        "/codec/decode", json=payloads_json(plain(1)), headers={**BEARER, "Origin": "http://evil.example"}
    )
    assert posted.status_code == 403


@pytest.mark.parametrize("settings_overrides", [ON])
async def test_the_codec_endpoint_refuses_what_it_cannot_read(api):
    not_payloads = await api.http.post("/codec/decode", content=b'{"payloads": 3}', headers=BEARER)
    assert not_payloads.status_code == 400
    other_key = PayloadCipher(secrets.token_bytes(32)).seal(plain("x"))
    foreign = await api.http.post("/codec/decode", json=payloads_json(other_key), headers=BEARER)
    assert foreign.status_code == 400
    assert foreign.json()["msg"] == "A payload cannot be decrypted with this key"
    other_namespace = await api.http.post(
        "/codec/decode", json=payloads_json(plain(1)), headers={**BEARER, "X-Namespace": "elsewhere"}
    )
    assert other_namespace.status_code == 400


@pytest.mark.parametrize("settings_overrides", [ON])
async def test_a_workflows_history_is_ciphertext_and_the_codec_endpoint_reads_it(stack):
    """What the Temporal UI shows without the codec, and with it."""
    to = f"codec.{secrets.token_hex(5)}@example.com"
    sent = await stack.call("/mail", body("send", receiver_name=["Ada"], receiver_email=[to]))
    assert sent["msg_code"] == "RESTAPI000", sent
    queue = stack.app.state.settings.temporal.task_queue
    mails = f'TaskQueue = "{queue}" AND WorkflowType = "MailDeliveryWorkflow"'
    [mail_workflow] = [w.id async for w in stack.env.client.list_workflows(mails)]
    events = [event async for event in stack.env.client.get_workflow_handle(mail_workflow).fetch_history_events()]
    started = events[0].workflow_execution_started_event_attributes.input
    raw = MessageToDict(started)
    assert encodings(raw) == ["binary/encrypted"]
    decoded = (await stack.http.post("/codec/decode", json=raw, headers=BEARER)).json()
    [delivery] = values(decoded)
    assert isinstance(delivery, dict)  # the MailDelivery the API started the workflow with
    assert delivery["idempotency_key"].startswith("DEMO-c-")
