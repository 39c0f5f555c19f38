"""`/auth` agent_change_password: proof images, location forms, the new password generated, e-mailed through the
durable mail workflow (SMTP sink) and working at /authenticate, the old one and the agent's other tokens ended."""

from __future__ import annotations

import asyncio
import json
import os
import re
import secrets
import shutil
from collections import Counter
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import update
from sqlmodel import col, select

from activities.support import SupportActivities
from cli.accounts import AgentSpec, create_agent
from models.agents import PasswordChange, ProofBlob, ProofImageRow
from models.auth import Agent
from models.crypto import verify_secret
from models.enrollment.lines import Pacing
from models.support import Sweep
from models.types import utcnow
from tests.support.app import ApiClient, reconfigure
from tests.support.builders import body
from tests.support.images import GIF, JPEG, b64, data_uri, png
from tests.support.mail_relay import REFUSING_PORT
from workflows.mail import mail_workflow_id
from workflows.support import SweepWorkflow

MiB = 1024 * 1024
OLD_PASSWORD, PIN = "agent-old-pass-1", "2468"
CHANGED = "Password changed; the new password has been e-mailed to the agent"
QUEUED = "Password changed; the e-mail with the new password is queued for delivery to the agent"


@pytest.fixture(scope="module")
async def auth_stack(
    tmp_path_factory: pytest.TempPathFactory,
    sqlite_template_path: Path,
    temporal_env: Any,
    sandbox_url: str,
    sandbox_smtp_port: int,
) -> AsyncIterator[Any]:
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
    answer: dict[str, Any] = (
        await auth_stack.post(
            "/authenticate", {"vendor_id": "DEMO", "username": username, "password": password, "pin": PIN}
        )
    ).json()
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
        query = select(ProofImageRow, ProofBlob).join(ProofBlob, col(ProofBlob.sha256) == col(ProofImageRow.sha256))
        proofs = (await session.exec(query.where(ProofImageRow.password_change_id == record.id))).all()
    assert (record.latitude, record.longitude, record.vendor_id) == ("40.7128", "-74.0060", agent.vendor_id)
    assert record.changed_at == agent.password_changed_at
    assert {(p.kind, p.media_type, blob.image) for p, blob in proofs} == {
        ("worksite_proof", "image/png", png()),
        ("table_proof", "image/jpeg", JPEG),
        ("agent_change_password", "image/jpeg", JPEG),
    }
    # An agent without API credentials of its own still gets its new password.
    assert verify_secret(agent.password_hash, await mailed_password(auth_stack, username))


async def test_agent_change_password_while_the_relay_is_down_says_queued_and_mails_once_back(auth_stack):
    username = await new_agent(auth_stack, pin=None)
    await auth_stack.sandbox_post("/sandbox/smtp", {"available": False})
    # LINEUP_MAIL_WAIT_SECONDS small: the answer says queued after it, and the test waits that, not 3 s.
    before = auth_stack.app.state.settings.mail.wait_seconds
    reconfigure(auth_stack.app, mail_wait_seconds=0.5)
    try:
        answer = await auth_stack.call("/auth", change(username))
        assert (answer["msg_code"], answer["msg"]) == ("RESTAPI000", QUEUED)
        assert await auth_stack.mail_to(f"{username}@demo.example") == []
    finally:
        await auth_stack.sandbox_post("/sandbox/smtp", {"available": True})
        reconfigure(auth_stack.app, mail_wait_seconds=before)
    password = await mailed_password(auth_stack, username)  # exactly one message, once the relay is back
    async with auth_stack.db.transaction() as session:
        agent = (await session.exec(select(Agent).where(Agent.username == username))).one()
    assert verify_secret(agent.password_hash, password)


@pytest.mark.parametrize("settings_overrides", [{"smtp_port": REFUSING_PORT}])
async def test_agent_change_password_refused_by_the_relay_says_so(refusing_relay, stack):
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
            b64(png(padding=1 * MiB - len(png()))),
            b64(png(padding=1 * MiB - len(png()) + 1)),
            "Table proof must be at most 1 MiB once decoded",
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
    largest = b64(png(padding=1 * MiB - len(png())))  # three of the largest proofs fit
    request = change(username, worksite_proof=largest, table_proof=largest, agent_change_password=largest)
    assert (await auth_stack.call("/auth", request))["msg_code"] == "RESTAPI000"
    request["pad"] = "x" * limit  # past the limit, whatever it is
    assert_refused(await auth_stack.call("/auth", request), f"Request body exceeds the limit of {limit} bytes")


@pytest.mark.parametrize(("source", "code"), [("IVR", "RESTAPI000"), ("CSR", "RESTAPI103")])
async def test_agent_change_password_sources(auth_stack, source, code):
    username = await new_agent(auth_stack, pin=None)
    assert (await auth_stack.call("/auth", change(username, source=source)))["msg_code"] == code


# Issue 19, finding 7: proofs at most 1 MiB each (the field rule above), a few changes per agent a day, each
# image stored once however often it is sent, and purged after the retention.
async def test_agent_change_password_is_limited_per_agent_per_day(auth_stack):
    username = await new_agent(auth_stack, pin=None)
    for _ in range(3):  # LINEUP_PASSWORD_CHANGES_PER_DAY's default
        assert (await auth_stack.call("/auth", change(username)))["msg_code"] == "RESTAPI000"
    assert_refused(
        await auth_stack.call("/auth", change(username)),
        "At most 3 password changes a day for one agent; try again later",
    )
    other = await new_agent(auth_stack, pin=None)  # per agent: another one goes on
    assert (await auth_stack.call("/auth", change(other)))["msg_code"] == "RESTAPI000"


async def proofs_of(auth_stack, username: str) -> list[tuple[int, str]]:
    """(password_change_id, sha256) of the agent's proofs."""
    async with auth_stack.db.transaction() as session:
        agent = (await session.exec(select(Agent).where(Agent.username == username))).one()
        query = select(ProofImageRow.password_change_id, ProofImageRow.sha256).join(PasswordChange)
        return [tuple(row) for row in (await session.exec(query.where(PasswordChange.agent_id == agent.id))).all()]


async def blobs(auth_stack, digests: set[str]) -> dict[str, int]:
    async with auth_stack.db.transaction() as session:
        found = (await session.exec(select(ProofBlob.sha256).where(col(ProofBlob.sha256).in_(digests)))).all()
    return Counter(found)


async def test_identical_proofs_are_stored_once_and_purged_after_the_retention(auth_stack):
    same = data_uri(png(padding=1000 + secrets.randbelow(1000)))  # an image of this test's own
    first, second = await new_agent(auth_stack, pin=None), await new_agent(auth_stack, pin=None)
    unique = data_uri(png(padding=3000 + secrets.randbelow(1000)))
    for username, table in ((first, unique), (second, same)):
        request = change(username, worksite_proof=same, table_proof=table, agent_change_password=same)
        assert (await auth_stack.call("/auth", request))["msg_code"] == "RESTAPI000"
    old, young = await proofs_of(auth_stack, first), await proofs_of(auth_stack, second)
    digests = {digest for _, digest in old + young}
    assert len(old) == len(young) == 3 and len(digests) == 2
    assert await blobs(auth_stack, digests) == dict.fromkeys(digests, 1)  # each image's bytes once

    async with auth_stack.db.transaction() as session:  # the first change is older than the retention
        ago = utcnow() - timedelta(days=366)
        await session.execute(update(PasswordChange).where(col(PasswordChange.id) == old[0][0]).values(changed_at=ago))
    await SupportActivities(auth_stack.db, auth_stack.app.state.resources.cipher).purge_tokens(
        Sweep(proof_retention_days=365)
    )
    assert await proofs_of(auth_stack, first) == [] and len(await proofs_of(auth_stack, second)) == 3
    shared = {digest for _, digest in young}
    assert await blobs(auth_stack, digests) == dict.fromkeys(shared, 1)  # the shared image stays with the young one


async def test_agent_change_password_ends_the_agents_console_sessions(auth_stack):
    """Issue 19, finding 11: whoever held the old password keeps no way in through the console."""
    username = f"support.{secrets.token_hex(4)}"
    spec = AgentSpec(
        "DEMO",
        username,
        OLD_PASSWORD,
        roles=("agent", "support"),
        email=f"{username}@demo.example",
        no_api_password=True,
    )
    assert await create_agent(auth_stack.db, spec)
    transport = httpx.ASGITransport(app=auth_stack.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://lineup.test") as browser:
        page = await browser.get("/console/login")
        csrf = re.search(r'name="csrf" value="([^"]+)"', page.text)
        assert csrf is not None
        form = {"csrf": csrf[1], "username": username, "password": OLD_PASSWORD}
        assert (await browser.post("/console/login", data=form)).status_code == 303
        assert (await browser.get("/console")).status_code == 200
        assert (await auth_stack.call("/auth", change(username, agent_password=OLD_PASSWORD)))[
            "msg_code"
        ] == "RESTAPI000"
        ended = await browser.get("/console")
        assert (ended.status_code, ended.headers["location"]) == (303, "/console/login?ended=1")


async def test_agent_change_password_while_temporal_is_away_is_queued_and_mailed_by_the_sweep(auth_stack):
    """Issue 19, finding 9: the change and its e-mail are committed before Temporal is asked, so with Temporal
    away the answer is "queued" (not an outage), and the sweep mails the password once Temporal is back."""
    username = await new_agent(auth_stack, pin=None)
    settings = auth_stack.app.state.settings
    async with ApiClient.running(settings.replaced(temporal_address="127.0.0.1:1")) as away:
        answer = await away.call("/auth", change(username))
    assert (answer["msg_code"], answer["msg"]) == ("RESTAPI000", QUEUED), answer
    assert await auth_stack.mail_to(f"{username}@demo.example") == []

    sweep = Sweep(grace_seconds=0, token_retention_hours=24, pacing=Pacing())
    report = await auth_stack.env.client.execute_workflow(
        SweepWorkflow.run, sweep, id=f"sweep-{secrets.token_hex(4)}", task_queue=settings.temporal.task_queue
    )
    assert report.mails_started == 1
    password = await mailed_password(auth_stack, username)
    async with auth_stack.db.transaction() as session:
        agent = (await session.exec(select(Agent).where(Agent.username == username))).one()
    assert verify_secret(agent.password_hash, password)


async def test_agent_change_password_of_a_support_agent_needs_its_current_password(auth_stack):
    """Issue 27, finding 14: any API user could change a support agent's password (and sign it out of the
    console); a support or admin agent's change needs that agent's current password in agent_password."""
    username = f"support.{secrets.token_hex(4)}"
    spec = AgentSpec(
        "DEMO",
        username,
        OLD_PASSWORD,
        roles=("agent", "support"),
        email=f"{username}@demo.example",
        no_api_password=True,
    )
    assert await create_agent(auth_stack.db, spec)
    needs = (
        "Changing the password of an agent with the support or admin role needs that agent's current password in "
        "agent_password"
    )
    for refused in (
        await auth_stack.call("/auth", change(username)),
        await auth_stack.call("/auth", change(username, agent_password="wrong-pass-1")),
    ):
        assert (refused["msg_code"], refused["msg"], refused["errors"]) == (
            "RESTAPI104",
            "Invalid Agent ID or Password",
            [needs],
        )
    async with auth_stack.db.transaction() as session:
        agent = (await session.exec(select(Agent).where(Agent.username == username))).one()
        assert verify_secret(agent.password_hash, OLD_PASSWORD)  # unchanged
        assert not (await session.exec(select(PasswordChange).where(PasswordChange.agent_id == agent.id))).all()
    changed = await auth_stack.call("/auth", change(username, agent_password=OLD_PASSWORD))
    assert (changed["msg_code"], changed["msg"]) == ("RESTAPI000", CHANGED)
    ordinary = await new_agent(auth_stack)  # an agent without those roles: as before
    assert (await auth_stack.call("/auth", change(ordinary)))["msg_code"] == "RESTAPI000"
