"""`/auth` agent_change_password: proof images, location forms, the new password generated, e-mailed through the
durable mail workflow (SMTP sink) and working at /authenticate, the old one and the agent's other tokens ended."""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import select

from cli.accounts import AgentSpec, create_agent
from models.passwords import verify_secret
from models.tables.agents import Agent
from models.tables.auth import PasswordChange, ProofImage
from tests.builders import body
from tests.support.images import GIF, JPEG, b64, data_uri, png
from tests.workflows.test_mail_delivery import REFUSING_PORT, refusing_relay  # noqa: F401 (a fixture)
from workflows.ids import mail_workflow_id

MiB = 1024 * 1024
OLD_PASSWORD, PIN = "agent-old-pass-1", "2468"
CHANGED = "Password changed; the new password has been e-mailed to the agent"
QUEUED = "Password changed; the e-mail with the new password is queued for delivery to the agent"


@pytest.fixture(scope="module")
async def auth_stack(
    tmp_path_factory: pytest.TempPathFactory, sqlite_template_path: Path, temporal_env: Any, sandbox_url: str,
    sandbox_smtp_port: int,
) -> AsyncIterator[Any]:  # fmt: skip
    """One stack for the module, delivering mail to the session's SMTP sink; each test makes its own agent."""
    from tests.support.stack import Stack

    data_dir = tmp_path_factory.mktemp("auth")
    shutil.copyfile(sqlite_template_path, data_dir / "lineup.db")
    with pytest.MonkeyPatch.context() as patch:
        for name in [name for name in os.environ if name.startswith("LINEUP_")]:
            patch.delenv(name)
        url = f"sqlite+aiosqlite:///{data_dir / 'lineup.db'}"
        async with Stack.running(data_dir, url, temporal_env, sandbox_url, smtp_port=sandbox_smtp_port) as running:
            yield running


async def new_agent(auth_stack, *, pin: str | None = PIN, email: bool = True, vendor: str = "DEMO") -> str:
    """An agent of DEMO; with a PIN it also logs in at /authenticate as the API user of the same name."""
    username = f"agent.{secrets.token_hex(4)}"
    spec = AgentSpec(vendor, username, OLD_PASSWORD, pin=pin, email=f"{username}@demo.example" if email else None)
    assert await create_agent(auth_stack.db, spec)
    return username


async def login(auth_stack, username: str, password: str) -> dict[str, Any]:
    answer: dict[str, Any] = (await auth_stack.post("/authenticate", {"vendor_id": "DEMO", "username": username,
                                                                 "password": password, "pin": PIN})).json()  # fmt: skip
    return answer


async def mailed_password(auth_stack, username: str) -> str:
    """The new password from the message the SMTP sink received for the agent (waits for the workflow)."""
    for _ in range(100):
        messages = await auth_stack.mail_to(f"{username}@demo.example")
        if messages:
            assert len(messages) == 1, messages
            assert messages[0]["subject"] == "Your new Lineup password"
            found = re.search(r"<strong>([^<]+)</strong>", messages[0]["body"])
            assert found, messages[0]["body"]
            return found.group(1)
        await asyncio.sleep(0.2)
    raise AssertionError(f"no mail for {username}")


def change(username: str, **overrides: Any) -> dict[str, Any]:
    return body("agent_change_password", agent_id=username, **overrides)


def assert_refused(envelope, error):
    assert (envelope["msg_code"], envelope["msg"], envelope["errors"]) == ("RESTAPI110", "Error occurred", [error])


async def test_agent_change_password_old_stops_new_arrives_by_mail_and_works(auth_stack):
    username = await new_agent(auth_stack)
    session_token = (await login(auth_stack, username, OLD_PASSWORD))["token"]
    other_session = (await login(auth_stack, username, OLD_PASSWORD))["token"]

    answer = (await auth_stack.post("/auth", change(username), token=session_token)).json()
    assert (answer["msg_code"], answer["msg"]) == ("RESTAPI000", CHANGED)
    fresh = answer["token"]

    assert await login(auth_stack, username, OLD_PASSWORD) == {
        "msg_code": "RESTAPI001",
        "msg": "Invalid credentials!!",
        "token": "",
    }
    new_password = await mailed_password(auth_stack, username)
    assert len(new_password) >= 16 and new_password != OLD_PASSWORD
    relogin = await login(auth_stack, username, new_password)
    assert relogin["msg_code"] == "RESTAPI000" and relogin["token"]

    # The agent's other outstanding token is ended; the fresh token of the response still works.
    ended = (await auth_stack.post("/notes", {"action": "add_notes"}, token=other_session)).json()
    assert (ended["msg_code"], ended["msg"]) == ("RESTAPI001", "Token expire")
    chained = (
        await auth_stack.post(
            "/agent",
            body("check_signature", agent_id=username, login_log_otp=relogin["data"]["login_log_otp"]),
            token=fresh,
        )
    ).json()
    assert chained["errors"] == ["Signature not found"]  # past the token check
    async with auth_stack.db.transaction() as session:
        agent = (await session.exec(select(Agent).where(Agent.username == username))).one()
    assert verify_secret(agent.password_hash, new_password) and agent.password_changed_at is not None


async def test_agent_change_password_stores_the_proofs_with_the_agent_and_location(auth_stack):
    username = await new_agent(auth_stack, pin=None)
    answer = await auth_stack.call("/auth", change(username, coordinate=None, latitude=40.7128, longitude="-74.0060"))
    assert answer["msg_code"] == "RESTAPI000", answer
    async with auth_stack.db.transaction() as session:
        agent = (await session.exec(select(Agent).where(Agent.username == username))).one()
        record = (await session.exec(select(PasswordChange).where(PasswordChange.agent_id == agent.id))).one()
        proofs = (await session.exec(select(ProofImage).where(ProofImage.password_change_id == record.id))).all()
    assert (record.latitude, record.longitude, record.vendor_id) == ("40.7128", "-74.0060", agent.vendor_id)
    assert record.changed_at == agent.password_changed_at
    assert {(p.kind, p.media_type, p.image) for p in proofs} == {
        ("worksite_proof", "image/png", png()),
        ("table_proof", "image/jpeg", JPEG),
        ("agent_change_password", "image/jpeg", JPEG),
    }
    # An agent without API credentials of its own still gets its new password.
    assert verify_secret(agent.password_hash, await mailed_password(auth_stack, username))


async def test_agent_change_password_while_the_relay_is_down_says_queued_and_mails_once_back(auth_stack):
    username = await new_agent(auth_stack, pin=None)
    await auth_stack.sandbox_post("/sandbox/smtp", {"available": False})
    try:
        answer = await auth_stack.call("/auth", change(username))
        assert (answer["msg_code"], answer["msg"]) == ("RESTAPI000", QUEUED)
        assert await auth_stack.mail_to(f"{username}@demo.example") == []
    finally:
        await auth_stack.sandbox_post("/sandbox/smtp", {"available": True})
    password = await mailed_password(auth_stack, username)  # exactly one message, once the relay is back
    async with auth_stack.db.transaction() as session:
        agent = (await session.exec(select(Agent).where(Agent.username == username))).one()
    assert verify_secret(agent.password_hash, password)


@pytest.mark.parametrize("settings_overrides", [{"smtp_port": REFUSING_PORT}])
async def test_agent_change_password_refused_by_the_relay_says_so(refusing_relay, stack):  # noqa: F811
    # Of vendor OTHER: its mail workflow's id (`OTHER-password-1`) is not one auth_stack's database used on
    # the same Temporal server.
    username = await new_agent(stack, pin=None, vendor="OTHER")
    refused = await stack.call("/auth", change(username), vendor="OTHER")
    assert_refused(
        refused, "Password changed, but the mail relay refused the e-mail with it: 550 5.1.1 Mailbox does not exist"
    )


async def test_agent_change_password_keeps_the_password_out_of_workflow_history(auth_stack):
    username = await new_agent(auth_stack, pin=None)
    assert (await auth_stack.call("/auth", change(username)))["msg_code"] == "RESTAPI000"
    password = await mailed_password(auth_stack, username)
    async with auth_stack.db.transaction() as session:
        agent = (await session.exec(select(Agent).where(Agent.username == username))).one()
        record = (await session.exec(select(PasswordChange).where(PasswordChange.agent_id == agent.id))).one()
    handle = auth_stack.env.client.get_workflow_handle(mail_workflow_id(f"DEMO-password-{record.id}"))
    history = json.dumps((await handle.fetch_history()).to_json_dict())
    assert "MailDeliveryWorkflow" in history and password not in history and username not in history


async def test_agent_change_password_repeated_transaction_id_changes_once(auth_stack):
    username = await new_agent(auth_stack, pin=None)
    request = change(username, external_transaction_id="PWD1")
    first, again = await auth_stack.call("/auth", request), await auth_stack.call("/auth", request)
    assert first["msg_code"] == again["msg_code"] == "RESTAPI000"
    password = await mailed_password(auth_stack, username)  # exactly one message
    async with auth_stack.db.transaction() as session:
        agent = (await session.exec(select(Agent).where(Agent.username == username))).one()
        assert len((await session.exec(select(PasswordChange).where(PasswordChange.agent_id == agent.id))).all()) == 1
    assert verify_secret(agent.password_hash, password)


async def test_agent_change_password_needs_an_email_address(auth_stack):
    username = await new_agent(auth_stack, email=False)
    refused = await auth_stack.call("/auth", change(username))
    assert_refused(refused, f"Agent {username} has no e-mail address on file; ask an administrator to add one")
    assert (await login(auth_stack, username, OLD_PASSWORD))["msg_code"] == "RESTAPI000"  # nothing changed


@pytest.mark.parametrize(
    ("field", "good", "bad", "error"),
    [
        ("worksite_proof", b64(JPEG), data_uri(GIF, "image/gif"), "Worksite proof must be a PNG or JPEG image"),
        ("table_proof", data_uri(png()), b64(b"just text"), "Table proof must be a PNG or JPEG image"),
        (
            "agent_change_password",
            data_uri(png()),
            "not base64!",
            "Agent change password proof must be base64 data (a data URI is allowed)",
        ),
        ("agent_change_password", b64(JPEG), None, "Please enter Agent change password proof"),
        (
            "table_proof",
            b64(png(padding=4 * MiB - len(png()))),
            b64(png(padding=4 * MiB - len(png()) + 1)),
            "Table proof must be at most 4 MiB once decoded",
        ),
        ("latitude", "-90", "-90.5", "Latitude must be a latitude between -90 and 90"),
        ("longitude", "180", "east", "Longitude must be a decimal number between -180 and 180"),
        (
            "coordinate",
            {"latitude": "1", "longitude": "2"},
            {"latitude": "1", "longitude": "200"},
            "Longitude must be a longitude between -180 and 180",
        ),
    ],
)
async def test_agent_change_password_field_rule(auth_stack, field, good, bad, error):
    username = await new_agent(auth_stack, pin=None)
    paired = {"latitude": "10", "longitude": "20", "coordinate": None} if field in ("latitude", "longitude") else {}
    answer = await auth_stack.call("/auth", change(username, **{**paired, field: good}))
    assert answer["msg_code"] == "RESTAPI000", answer
    request = change(username, **paired)
    request[field] = bad
    assert_refused(await auth_stack.call("/auth", request), error)


@pytest.mark.parametrize(
    ("location", "error"),
    [
        ({"coordinate": None}, "Please enter Latitude and Longitude, or a Coordinate object"),
        ({"coordinate": None, "latitude": "10"}, "Latitude and Longitude must be sent together"),
        ({"longitude": "10"}, "Latitude and Longitude must be sent together"),
    ],
)
async def test_agent_change_password_needs_one_location(auth_stack, location, error):
    username = await new_agent(auth_stack, pin=None)
    assert_refused(await auth_stack.call("/auth", change(username, **location)), error)


async def test_agent_change_password_body_limit_is_12_mib(auth_stack):
    limit = auth_stack.app.state.settings.api.max_auth_body_bytes
    assert limit == 12 * MiB
    username = await new_agent(auth_stack, pin=None)
    huge = b64(png(padding=4 * MiB))  # three of these pass 12 MiB
    request = change(username, worksite_proof=huge, table_proof=huge, agent_change_password=huge)
    assert_refused(await auth_stack.call("/auth", request), f"Request body exceeds the limit of {limit} bytes")


@pytest.mark.parametrize(("source", "code"), [("IVR", "RESTAPI000"), ("CSR", "RESTAPI103")])
async def test_agent_change_password_sources(auth_stack, source, code):
    username = await new_agent(auth_stack, pin=None)
    assert (await auth_stack.call("/auth", change(username, source=source)))["msg_code"] == code
