"""The SMTP relay: composes one HTML message and hands it over with aiosmtplib. Host, port, TLS mode and
credentials come from settings; `make run` points them at the sandbox's sink."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import format_datetime

import aiosmtplib

from adapters.http import Rejected, Unavailable
from models.settings import Settings
from models.types import utcnow

log = logging.getLogger("lineup.smtp")

TIMEOUT_SECONDS = 30.0
SYSTEM = "The mail relay"
UNBUILDABLE = "unbuildable"  # Rejected's code for a message no relay could be handed


@dataclass(frozen=True, repr=False)
class Mail:
    sender_name: str
    sender_email: str
    subject: str
    html: str
    recipients: list[tuple[str, str]]  # (name, address)
    message_id: str
    idempotency_key: str

    def __repr__(self) -> str:
        return f"Mail({self.message_id}, recipients={len(self.recipients)})"


def compose(mail: Mail, *, envelope_sender: str) -> EmailMessage[str, str]:
    """From is the channel's sender; Sender is our relay address (the one the SMTP envelope uses)."""
    message = EmailMessage()
    message["From"] = Address(display_name=mail.sender_name, addr_spec=mail.sender_email)
    message["Sender"] = Address(addr_spec=envelope_sender)
    message["To"] = [Address(display_name=name, addr_spec=address) for name, address in mail.recipients]
    message["Subject"] = mail.subject
    message["Date"] = format_datetime(utcnow())
    message["Message-ID"] = mail.message_id
    # Lets a relay or a mailbox drop a second copy, should a crash between "accepted" and "marked sent"
    # make the activity send it again.
    message["X-Idempotency-Key"] = mail.idempotency_key
    message.set_content(mail.html, subtype="html")
    return message


class SmtpSender:
    def __init__(self, settings: Settings) -> None:
        self._host, self._port, self._tls = settings.mail.smtp_host, settings.mail.smtp_port, settings.mail.smtp_tls
        self._username = settings.mail.smtp_username or None
        self._password = settings.mail.smtp_password.get_secret_value() or None
        self.envelope_sender = settings.mail.sender

    async def send(self, mail: Mail) -> None:
        """Hands the message over: Rejected when the relay refuses this message for good (5xx to its
        recipients or its content), Unavailable for anything that may pass (4xx, network, TLS, credentials)."""
        try:
            message = compose(mail, envelope_sender=self.envelope_sender)
            message.as_bytes()  # what aiosmtplib sends: a header or text it cannot serialize fails here, not there
        except (ValueError, UnicodeError) as exc:
            # Nothing about this message will change on a retry: it can never be sent. The exception's own
            # text may quote the content, so only its kind is kept.
            raise Rejected(UNBUILDABLE, f"the message cannot be composed ({type(exc).__name__})") from None
        recipients = [address for _, address in mail.recipients]
        try:
            refused, _ = await aiosmtplib.send(
                message,
                sender=self.envelope_sender,
                recipients=recipients,
                hostname=self._host,
                port=self._port,
                use_tls=self._tls == "tls",
                start_tls=self._tls == "starttls",
                username=self._username,
                password=self._password if self._username else None,
                timeout=TIMEOUT_SECONDS,
            )
        except aiosmtplib.SMTPRecipientsRefused as exc:
            if all(refusal.code >= 500 for refusal in exc.recipients):
                first = exc.recipients[0]  # its words, not its address: the reason is stored and shown
                raise Rejected(str(first.code), first.message) from None
            raise Unavailable(SYSTEM, f"recipients deferred ({exc.recipients[0].code})") from None
        except aiosmtplib.SMTPResponseException as exc:
            if isinstance(exc, aiosmtplib.SMTPDataError) and exc.code >= 500:  # this message read, refused for good
                raise Rejected(str(exc.code), exc.message) from None
            # The rest may pass later (DATA deferred; greeting, HELO, AUTH or MAIL FROM refused: the relay or our
            # settings, never this message), so the mail waits (an operator can fix credentials), never dropped.
            raise Unavailable(SYSTEM, f"{exc.code} {exc.message}") from None
        except (aiosmtplib.SMTPException, OSError) as exc:
            raise Unavailable(SYSTEM, type(exc).__name__) from None
        if refused:
            # The others have it; a partial refusal cannot be retried without repeating it to them.
            fields = {"message_id": mail.message_id, "refused": len(refused)}
            log.warning("relay refused some recipients", extra={"fields": fields})
