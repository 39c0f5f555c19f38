"""SMTP sink: accepts every message, stores it for GET /sandbox/mail, and can play an outage.

The sink runs in aiosmtpd's own thread and event loop; it shares the Store (which is locked) with the
HTTP app, and reads the outage switch from it on every command so a change applies at once.
"""

import logging
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

from sandbox.config import SandboxConfig
from sandbox.store import Row, Store

log = logging.getLogger(__name__)

SMTP_HOST = "127.0.0.1"
UNAVAILABLE = "421 Service not available"
AVAILABLE_SETTING = "smtp_available"


def smtp_available(store: Store) -> bool:
    """False while a test simulates a relay outage."""
    return store.get_setting(AVAILABLE_SETTING, "1") == "1"


def set_smtp_available(store: Store, available: bool) -> None:
    """Start or end a simulated relay outage."""
    store.set_setting(AVAILABLE_SETTING, "1" if available else "0")


def message_body(message: EmailMessage) -> str:
    """The HTML part if there is one, else the plain-text part, else the raw payload."""
    part = message.get_body(preferencelist=("html", "plain"))
    if part is None:
        raw = message.get_payload(decode=True)
        return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else ""
    try:
        return str(part.get_content())
    except (LookupError, ValueError):
        # An unknown charset should not lose the message: keep what can be read.
        raw = part.get_payload(decode=True)
        return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else ""


def parse_message(envelope: Envelope) -> Row:
    """The fields GET /sandbox/mail lists, from one SMTP transaction."""
    content = envelope.content if isinstance(envelope.content, bytes) else str(envelope.content).encode()
    message = BytesParser(policy=policy.default).parsebytes(content)
    assert isinstance(message, EmailMessage)

    def header(name: str) -> str | None:
        value = message.get(name)
        return None if value is None else str(value)

    return {
        "mail_from": envelope.mail_from,
        "recipients": list(envelope.rcpt_tos),
        "to_header": header("To"),
        "subject": header("Subject"),
        "message_id": header("Message-ID"),
        "idempotency_key": header("X-Idempotency-Key"),
        "body": message_body(message),
        "received_at": datetime.now(UTC).isoformat(timespec="milliseconds"),
    }


class SinkHandler:
    """aiosmtpd handler: refuse with 421 during an outage, otherwise accept and store."""

    def __init__(self, store: Store) -> None:
        self._store = store

    async def handle_MAIL(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, mail_options: list[str]
    ) -> str:
        """Start a transaction, unless the relay is 'down'."""
        if not smtp_available(self._store):
            return UNAVAILABLE
        envelope.mail_from = address
        envelope.mail_options.extend(mail_options)
        return "250 OK"

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, rcpt_options: list[str]
    ) -> str:
        """Accept every recipient (the outage may have started mid-transaction)."""
        if not smtp_available(self._store):
            return UNAVAILABLE
        envelope.rcpt_tos.append(address)
        envelope.rcpt_options.extend(rcpt_options)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        """Store the message."""
        if not smtp_available(self._store):
            return UNAVAILABLE
        message_id = self._store.add_mail(parse_message(envelope))
        log.info("stored mail %s for %d recipient(s)", message_id, len(envelope.rcpt_tos))
        return "250 Message accepted for delivery"


def start_smtp_sink(config: SandboxConfig, store: Store) -> Controller:
    """Start the sink on 127.0.0.1:config.smtp_port in its own thread; call .stop() to end it."""
    controller = Controller(SinkHandler(store), hostname=SMTP_HOST, port=config.smtp_port)
    controller.start()
    return controller
