"""Webhook lag as the soak and the bench report it (issue 35, finding 9): each event's time from its `created` to
its first arrival at the receiver, a repeated delivery (at least once) counted apart, not as a second lag."""

from __future__ import annotations

import json

from bench.webhook_lag import lag_of
from soak.report import _webhooks


def arrival(event_id: str, created: str, received_at: str) -> dict[str, str]:
    body = {"id": event_id, "type": "line.activated", "created": created, "data": {}}
    return {"received_at": received_at, "headers": "{}", "body": json.dumps(body)}


def test_lag_is_from_each_events_creation_to_its_first_arrival():
    deliveries = [
        arrival("evt_1", "2026-11-27T10:00:00.000000+00:00", "2026-11-27T10:00:00.250+00:00"),
        arrival("evt_2", "2026-11-27T10:00:01.000000+00:00", "2026-11-27T10:00:31.000+00:00"),
        arrival("evt_1", "2026-11-27T10:00:00.000000+00:00", "2026-11-27T10:00:12.000+00:00"),  # again
    ]
    lag = lag_of(deliveries)
    assert sorted(lag.seconds) == [0.25, 30.0] and lag.repeated == 1
    assert lag.summary() == {"events": 2, "p50_s": 0.25, "p99_s": 30.0, "max_s": 30.0, "repeated": 1}


def test_the_soak_table_gives_the_lag_and_what_did_not_arrive():
    facts: dict[str, float | int | None] = {
        "events": 2,
        "p50_s": 0.25,
        "p99_s": 30.0,
        "max_s": 30.0,
        "repeated": 1,
        "expected": 3,
    }
    [line] = _webhooks(facts | {"not_received": 1})
    assert line == (
        "webhooks    2 events received, lag p50 0.25, p99 30.00, max 30.00 s (event to receipt); "
        "1 of 3 not received, 1 received again"
    )
    assert _webhooks({}) == []  # a run that measured none says nothing
