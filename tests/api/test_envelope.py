"""Every path answers with the envelope: malformed bodies, methods, modules, actions, limits, crashes."""

from __future__ import annotations

from typing import Any

import pytest

from api import agents
from tests.support.builders import body

JSON = {"content-type": "application/json"}
BOM = "Request body starts with a byte order mark; send UTF-8 without one"


def assert_refused(envelope: dict[str, Any], code: str, msg: str, errors: list[str] | None) -> None:
    assert envelope["msg_code"] == code
    assert envelope["msg"] == msg
    assert envelope.get("errors") == errors
    assert "detail" not in envelope


@pytest.mark.parametrize(
    ("content", "headers", "error"),
    [
        (b"{not json", JSON, "Request body is not valid JSON"),
        (b"[1, 2]", JSON, "Request body must be a JSON object"),
        (b'"text"', JSON, "Request body must be a JSON object"),
        (b"", JSON, "Request body is empty; send a JSON object"),
        # Issue 27, finding 14: what Python's json reads but JSON is not
        (b'\xef\xbb\xbf{"action": "update_location_coordinate"}', JSON, BOM),
        (
            b'{"action": "update_location_coordinate", "latitude": NaN}',
            JSON,
            "Request body holds NaN, which is not a JSON number",
        ),
        (b'{"latitude": Infinity}', JSON, "Request body holds Infinity, which is not a JSON number"),
        (b'{"coordinate": {"latitude": -Infinity}}', JSON, "Request body holds -Infinity, which is not a JSON number"),
        (
            b'{"action": "x", "agent_id": "a", "agent_id": "b"}',
            JSON,
            "A JSON object of the body has a key twice ('agent_id')",
        ),
        (b'{"coordinate": {"a": 1, "a": 2}}', JSON, "A JSON object of the body has a key twice ('a')"),
        (b'{"\\u00e9\\u0000": 1, "\\u00e9\\u0000": 2}', JSON, "A JSON object of the body has a key twice"),
        (b'{"action": "\xff"}', JSON, "Request body is not UTF-8 text"),
        (
            b'{"action": "update_location_coordinate"}',
            {"content-type": "text/plain"},
            "Content-Type must be application/json",
        ),
    ],
)
async def test_malformed_body_is_refused_with_the_envelope(api, content, headers, error):
    response = await api.post("/agent", content=content, headers=headers, token=await api.token())
    assert response.status_code == 200
    assert_refused(response.json(), "RESTAPI110", "Error occurred", [error])


async def test_malformed_body_does_not_consume_the_token(api):
    token = await api.token()
    await api.post("/agent", content=b"{oops", headers=JSON, token=token)
    second = await api.post("/agent", body("update_location_coordinate"), token=token)
    assert second.json()["msg_code"] == "RESTAPI000"


@pytest.mark.parametrize("method", ["GET", "PUT", "DELETE", "PATCH"])
async def test_any_method_but_post_is_invalid_access(api, method):
    response = await api.http.request(method, "/agent")
    assert_refused(response.json(), "RESTAPI001", "Invalid Access!!", None)
    assert response.json()["token"] == ""


async def test_get_on_an_unknown_path_is_invalid_access(api):
    assert (await api.http.get("/nowhere")).json()["msg"] == "Invalid Access!!"


async def test_post_to_the_root_is_module_required(api):
    envelope = (await api.post("/", {"action": "x"})).json()
    assert_refused(envelope, "RESTAPI101", "Module required", ["Module required"])


async def test_post_to_an_unknown_module_is_module_does_not_exist(api):
    envelope = (await api.post("/nowhere", {"action": "x"})).json()
    assert_refused(envelope, "RESTAPI105", "Module does not exist", ["Module does not exist"])


async def test_missing_action_is_action_required(api):
    envelope = await api.call("/agent", {"source": "API", "agent_id": "demo.agent"})
    assert_refused(envelope, "RESTAPI102", "Action required", ["Action required"])
    assert envelope["token"]


async def test_blank_action_is_action_required(api):
    envelope = await api.call("/agent", {"action": "  ", "source": "API"})
    assert envelope["msg_code"] == "RESTAPI102"


async def test_unknown_action_is_action_does_not_exist(api):
    envelope = await api.call("/agent", body("update_location_coordinate", action="backend_config"))
    assert_refused(envelope, "RESTAPI106", "Action does not exist", ["Action does not exist"])


async def test_action_of_another_group_is_invalid_method(api):
    envelope = await api.call("/agent", body("update_location_coordinate", action="line_inquiry"))
    assert_refused(envelope, "RESTAPI108", "Invalid method", ["Invalid method"])


async def test_body_over_the_limit_is_refused_while_streaming(api):
    limit = api.app.state.settings.api.max_body_bytes

    async def chunks():
        yield b'{"action": "update_location_coordinate", "pad": "'
        for _ in range(limit // 65536 + 2):
            yield b"x" * 65536
        yield b'"}'

    response = await api.post("/agent", content=chunks(), headers=JSON, token=await api.token())
    assert_refused(
        response.json(), "RESTAPI110", "Error occurred", [f"Request body exceeds the limit of {limit} bytes"]
    )


async def test_declared_length_over_the_limit_is_refused_before_reading(api):
    limit = api.app.state.settings.api.max_body_bytes
    response = await api.post("/agent", content=b"x" * (limit + 1), headers=JSON)
    assert response.json()["errors"] == [f"Request body exceeds the limit of {limit} bytes"]


async def test_external_transaction_id_is_echoed(api):
    envelope = await api.call("/agent", body("update_location_coordinate", external_transaction_id="Order42abc"))
    assert envelope["external_transaction_id"] == "Order42abc"


async def test_invalid_external_transaction_id_is_a_field_error(api):
    envelope = await api.call("/agent", body("update_location_coordinate", external_transaction_id="no-dashes!"))
    assert envelope["msg_code"] == "RESTAPI110"
    assert envelope["errors"] == ["External Transaction Id must be letters and digits only, at most 64"]
    assert "external_transaction_id" not in envelope


async def test_unexpected_exception_is_a_500_envelope_with_a_reference(api, monkeypatch):
    pass

    async def explode(*_args, **_kwargs):
        raise RuntimeError("SELECT secret FROM internals")

    monkeypatch.setattr(agents, "_subject", explode)  # deep inside the operation
    response = await api.post("/agent", body("update_location_coordinate"), token=await api.token())
    envelope = response.json()
    assert response.status_code == 500
    assert envelope["msg_code"] == "RESTAPI110" and envelope["msg"] == "Error occurred"
    request_id = response.headers["x-request-id"]
    assert envelope["errors"] == [f"Unexpected error; reference {request_id}"]
    assert "SELECT" not in response.text and "RuntimeError" not in response.text


async def test_openapi_shows_each_group_as_a_union_of_actions(api):
    document = (await api.http.get("/openapi.json")).json()
    schema = document["paths"]["/agent"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert schema["discriminator"]["propertyName"] == "action"
    assert "update_location_coordinate" in schema["discriminator"]["mapping"]
    assert "422" not in document["paths"]["/agent"]["post"]["responses"]
    assert "HTTPValidationError" not in document["components"]["schemas"]
