"""The OpenAPI document a channel team generates a client from: the token header required on operations,
/authenticate's four fields required, and every action's answer documented with a schema and an example."""

from __future__ import annotations

from pydantic import TypeAdapter

from models.answers.registry import ANSWERS
from models.requests.base import ALL_SOURCES
from models.requests.catalog import ACTION_GROUP, ACTION_MODELS


async def document(api):
    return (await api.http.get("/openapi.json")).json()


async def test_every_operation_requires_the_token_header(api):
    found = await document(api)
    for path, item in found["paths"].items():
        if path in ("/authenticate", "/healthz", "/readyz"):
            continue
        [parameter] = [p for p in item["post"]["parameters"] if p["name"] == "token"]
        assert (parameter["in"], parameter["required"], parameter["schema"]) == ("header", True, {"type": "string"})


async def test_authenticate_requires_its_four_fields(api):
    schema = (await document(api))["components"]["schemas"]["AuthenticateRequest"]
    assert schema["required"] == ["vendor_id", "username", "password", "pin"]


async def test_every_action_has_its_answer_schema_and_an_example(api):
    found = await document(api)
    assert set(ACTION_MODELS) | {"authenticate"} == set(ANSWERS)
    for action, group in ACTION_GROUP.items():
        content = found["paths"][f"/{group}"]["post"]["responses"]["200"]["content"]["application/json"]
        example = content["examples"][action]["value"]
        name = "".join(word.capitalize() for word in action.split("_")) + "Answer"
        assert {"$ref": f"#/components/schemas/{name}"} in content["schema"]["oneOf"]
        schema = found["components"]["schemas"][name]
        documented = ANSWERS[action]
        assert ("data" in schema["properties"]) == (documented.shape is not None), action
        if documented.shape is not None:
            TypeAdapter(documented.shape).validate_python(example["data"])


async def test_no_fastapi_validation_shape_is_left(api):
    found = await document(api)
    assert "HTTPValidationError" not in found["components"]["schemas"]
    assert all("422" not in item["post"]["responses"] for item in found["paths"].values() if "post" in item)


async def test_every_action_names_the_sources_it_accepts(api):
    schemas = (await document(api))["components"]["schemas"]
    assert schemas["CreateMultiline"]["properties"]["source"]["enum"] == ["API", "ENROLLMENT_PORTAL", "WEBSITE"]
    assert "source" in schemas["CreateMultiline"]["required"]
    assert schemas["TpivListing"]["properties"]["source"]["enum"] == sorted(ALL_SOURCES | {"ENROLLMENT_PORTAL"})
    assert "source" not in schemas["TpivListing"].get("required", [])  # its source may be blank
    for name, schema in schemas.items():
        if "source" in schema.get("properties", {}) and not name.endswith("Answer"):
            assert "enum" in schema["properties"]["source"], name
