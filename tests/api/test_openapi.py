"""The OpenAPI document a channel team generates a client from, built from the action declarations: the token
header required on operations, /authenticate's four fields required, every action's request told apart by
`action` and naming the sources it accepts, and every action's answer documented with a schema and an example."""

from __future__ import annotations

from api.access import ALL_SOURCES
from api.catalog import CATALOG
from api.openapi import answer_name


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
    for action in CATALOG.actions:
        for group in action.groups:
            content = found["paths"][f"/{group}"]["post"]["responses"]["200"]["content"]["application/json"]
            example = content["examples"][action.name]["value"]
            assert {"$ref": f"#/components/schemas/{answer_name(action)}"} in content["schema"]["oneOf"]
            schema = found["components"]["schemas"][answer_name(action)]
            assert ("data" in schema["properties"]) == (action.answer is not None), action.name
            if action.answer is not None:
                action.adapter.validate_python(example["data"])


async def test_every_action_name_leads_to_its_request_schema(api):
    found = await document(api)
    for action in CATALOG.actions:
        for group in action.groups:
            body = found["paths"][f"/{group}"]["post"]["requestBody"]["content"]["application/json"]["schema"]
            for name in action.names:
                assert body["discriminator"]["mapping"][name] == f"#/components/schemas/{action.request.__name__}"
        schema = found["components"]["schemas"][action.request.__name__]
        assert schema["properties"]["action"]["enum"] == list(action.names)
        assert "action" in schema["required"]


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
    for action in CATALOG.actions:
        assert "enum" in schemas[action.request.__name__]["properties"]["source"], action.name
