"""`/mail` send: field rules (header injection among them), delivery to the sandbox's SMTP sink through a real
worker, and idempotency: the same request never makes a second e-mail."""

from __future__ import annotations

import secrets

import pytest
from sqlmodel import select

from models.mail import MailOutbox
from tests.support.builders import body

SENT, QUEUED = "Mail sent successfully", "Mail queued for delivery"
KIB = 1024
INJECTION = "Bcc: victim@example.com"


def address(name: str = "ada") -> str:
    """An address of this test's own: the sink is shared by the whole session."""
    return f"{name}.{secrets.token_hex(5)}@example.com"


def mail(**overrides):
    return body("send", **{"receiver_name": ["Ada Lovelace"], "receiver_email": [address()], **overrides})


def refusal(envelope):
    return envelope["msg_code"], envelope["msg"], envelope.get("errors")


def html(size: int) -> str:
    """An HTML body of exactly `size` bytes."""
    return "<p>" + "x" * (size - 7) + "</p>"


# (field, good, bad, the bad value's message)
RULES = [
    ("sender_name", "Lineup Support", f"Support\r\n{INJECTION}", "Sender name must not contain line breaks"),
    ("sender_name", "José's Team", "Ops\x07Team", "Sender name must not contain control characters"),
    ("sender_name", "N" * 100, "N" * 101, "Sender name must be at most 100 characters"),
    ("sender_name", "Support", "  ", "Please enter Sender name"),
    ("sender_email", "ops@lineup.example", "ops@lineup", "Sender email must be a valid e-mail address"),
    ("sender_email", "o'brien+ops@mail.example.org", f"ops@example.com\r\n{INJECTION}",
     "Sender email must be a valid e-mail address"),
    ("subject", "Welcome ✓", f"Hi\n{INJECTION}", "Subject must not contain line breaks"),
    # Characters Python's mail headers break lines at: such a subject could never be sent (issue 19, finding 5).
    ("subject", "Line\u00a0ready", "Line\u2028ready", "Subject must not contain line breaks"),
    ("subject", "Para ¶ ready", "Para\u2029ready", "Subject must not contain line breaks"),
    ("subject", "Next… ready", "Next\u0085ready", "Subject must not contain line breaks"),
    ("subject", "Tab-free", "C1\u009bcontrol", "Subject must not contain control characters"),
    ("sender_name", "Ops Team", "Ops\u2028Team", "Sender name must not contain line breaks"),
    ("subject", "S" * 255, "S" * 256, "Subject must be at most 255 characters"),
    ("subject", "Your bill", "", "Please enter Subject"),
    ("body", html(256 * KIB), html(256 * KIB + 1), "Body must be at most 256 KiB"),
    ("body", "<h1>Hello</h1>", None, "Please enter Body"),
    ("receiver_name", ["Grace Hopper"], [f"Ada\r\n{INJECTION}"], "Receiver name #1 must not contain line breaks"),
    ("receiver_name", ["O'Neil, Pat"], [], "Please enter Receiver name"),
    ("receiver_name", ["Pat"], "Pat", "Receiver name must be a list"),
    ("receiver_email", [address("grace")], ["grace@"], "Receiver email #1 must be a valid e-mail address"),
    ("receiver_email", [address("pat")], [address(), "x"], "Receiver email #2 must be a valid e-mail address"),
    (
        "receiver_email", [address("kay")], [address(), address()],
        "Receiver email must hold as many entries as Receiver name (1)",
    ),
]  # fmt: skip


@pytest.mark.parametrize(("field", "good", "bad", "error"), RULES)
async def test_send_field_rule(api, field, good, bad, error):
    assert refusal(await api.call("/mail", mail(**{field: bad}))) == ("RESTAPI110", "Error occurred", [error])


async def test_send_good_values_and_sources_pass(stack):
    goods = [(field, good) for field, good, _, _ in RULES] + [("source", "TABLET"), ("source", "WEBSITE")]
    for field, good in goods:
        envelope = await stack.call("/mail", mail(**{field: good}))
        assert (envelope["msg_code"], envelope["msg"]) == ("RESTAPI000", SENT), (field, envelope)
        assert "data" not in envelope


async def test_send_missing_fields_are_multiple_errors(api):
    refused = await api.call("/mail", body("send", sender_email=None, subject=None, receiver_name=None))
    assert refusal(refused) == (
        "RESTAPI010",
        "Multiple errors",
        ["Please enter Sender email", "Please enter Subject", "Please enter Receiver name"],
    )


async def test_send_at_most_fifty_recipients(api):
    names, emails = [f"R{n}" for n in range(51)], [f"r{n}@example.com" for n in range(51)]
    refused = await api.call("/mail", body("send", receiver_name=names, receiver_email=emails))
    assert refusal(refused) == (
        "RESTAPI010",
        "Multiple errors",
        ["Receiver name must hold at most 50 entries", "Receiver email must hold at most 50 entries"],
    )


async def test_send_refuses_a_source_not_allowed(api):
    envelope = await api.call("/mail", mail(source="IVR"))
    assert refusal(envelope) == ("RESTAPI103", "Source Not Allowed", ["Source Not Allowed"])


async def test_send_two_recipients_arrive_at_the_sink_with_both(stack):
    ada, grace = address("ada"), address("grace")
    envelope = await stack.call(
        "/mail",
        mail(
            receiver_name=["Ada Lovelace", "Grace Hopper"],
            receiver_email=[ada, grace],
            subject="Your line is active",
            body="<p>Welcome, <b>both</b> of you!</p>",
        ),
    )
    assert (envelope["msg_code"], envelope["msg"]) == ("RESTAPI000", SENT)
    assert envelope["token"]
    [received] = await stack.mail_to(ada)
    assert received["recipients"] == [ada, grace]
    assert received["to_header"] == f"Ada Lovelace <{ada}>, Grace Hopper <{grace}>"
    assert (received["subject"], received["body"].strip()) == (
        "Your line is active",
        "<p>Welcome, <b>both</b> of you!</p>",
    )
    assert received["mail_from"] == "no-reply@lineup.local"
    assert received["idempotency_key"].startswith("DEMO-c-")
    assert received["message_id"] == f"<{received['idempotency_key']}@lineup.local>"
    assert await stack.mail_to(grace) == [received]


async def test_send_fifty_recipients_is_one_message_to_all(stack):
    emails = [address(f"r{n}") for n in range(50)]
    envelope = await stack.call("/mail", mail(receiver_name=[f"Reader {n}" for n in range(50)], receiver_email=emails))
    assert envelope["msg"] == SENT
    [received] = await stack.mail_to(emails[-1])
    assert received["recipients"] == emails


async def test_send_the_same_request_again_sends_once(stack):
    request = mail()
    first, again = await stack.call("/mail", request), await stack.call("/mail", request)
    assert (first["msg"], again["msg"]) == (SENT, SENT)
    assert len(await stack.mail_to(request["receiver_email"][0])) == 1
    async with stack.db.transaction() as session:
        assert len((await session.exec(select(MailOutbox))).all()) == 1


async def test_send_external_transaction_id_is_the_idempotency_key(stack):
    reference, to = f"MAIL{secrets.token_hex(6)}", address()
    first = await stack.call("/mail", mail(receiver_email=[to], external_transaction_id=reference))
    # A retry of that transaction, even with edited content, is the same e-mail: already sent.
    retried = await stack.call("/mail", mail(receiver_email=[to], external_transaction_id=reference, subject="Edited"))
    assert (first["msg"], retried["msg"]) == (SENT, SENT)
    assert retried["external_transaction_id"] == reference
    [received] = await stack.mail_to(to)
    assert received["idempotency_key"] == f"DEMO-t-{reference}" and received["subject"] == "Your line is active"
    # Another transaction with identical content is another e-mail.
    other = await stack.call("/mail", mail(receiver_email=[to], external_transaction_id=f"{reference}B"))
    assert other["msg"] == SENT
    assert len(await stack.mail_to(to)) == 2


@pytest.mark.parametrize(
    "injected",
    [
        {"subject": f"Hello\r\n{INJECTION}"},
        {"subject": f"Hello\n{INJECTION}"},
        {"sender_name": f"Support\n{INJECTION}"},
        {"receiver_name": [f"Ada\r{INJECTION}"]},
    ],
)
async def test_send_header_injection_is_refused_and_nothing_is_sent(stack, injected):
    to = address()
    envelope = await stack.call("/mail", mail(receiver_email=[to], **injected))
    assert envelope["msg_code"] == "RESTAPI110" and envelope["errors"][0].endswith("must not contain line breaks")
    assert await stack.mail_to(to) == [] and await stack.mail_to("victim@example.com") == []
    async with stack.db.transaction() as session:
        assert (await session.exec(select(MailOutbox))).all() == []


async def test_send_keeps_content_out_of_workflow_history_and_encrypted_at_rest(stack, data_dir):
    to = address("secret")
    request = mail(receiver_email=[to], subject="Private subject", body="<p>Private body</p>")
    assert (await stack.call("/mail", request))["msg"] == SENT
    [received] = await stack.mail_to(to)
    history = await stack.env.client.get_workflow_handle(f"mail-{received['idempotency_key']}").fetch_history()
    text = history.to_json()
    assert "Private" not in text and to not in text
    stored = b"".join(path.read_bytes() for path in data_dir.glob("lineup.db*"))
    assert b"Private" not in stored and to.encode() not in stored
