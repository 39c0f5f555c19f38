"""A valid body per action; each test overrides only the field it is about."""

from __future__ import annotations

from typing import Any

BASE: dict[str, Any] = {"source": "API", "agent_id": "demo.agent"}

VALID: dict[str, dict[str, Any]] = {
    "update_location_coordinate": {
        "username": "demo.agent",
        "latitude": "33.7490",
        "longitude": "-84.3880",
        "ip_address": "203.0.113.7",
    },
}

GROUP = {"update_location_coordinate": "/agent"}


def body(action: str, /, **overrides: Any) -> dict[str, Any]:
    """The valid body of `action` with `overrides` applied; an override of None removes the field."""
    result = {"action": action, **BASE, **VALID[action], **overrides}
    return {key: value for key, value in result.items() if value is not None}
