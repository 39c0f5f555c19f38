"""Logs are JSON lines with a request id per call, and never carry bodies, tokens, passwords or PII."""

from __future__ import annotations

import io
import json
import logging

from models.observability import JsonFormatter
from tests.support.builders import body


async def test_access_log_is_a_json_line_with_request_id_and_no_secrets(api):
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger("lineup.access")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        login = await api.post(
            "/authenticate", {"vendor_id": "DEMO", "username": "demo.api", "password": "demo-pass-1", "pin": "1234"}
        )
        token = login.json()["token"]
        answer = await api.post("/agent", body("update_location_coordinate", latitude="12.3456"), token=token)
    finally:
        logger.removeHandler(handler)
    lines = [json.loads(line) for line in stream.getvalue().splitlines()]
    call = lines[-1]
    assert call["request_id"] == answer.headers["x-request-id"]
    assert (call["action"], call["agent"], call["msg_code"], call["status"]) == (
        "update_location_coordinate",
        "demo.agent",
        "RESTAPI000",
        200,
    )
    assert isinstance(call["duration_ms"], int)
    text = stream.getvalue()
    for secret in ("demo-pass-1", '1234"', token, answer.json()["token"], "12.3456"):
        assert secret not in text
