"""SMTP sink: messages sent over real SMTP are listed by GET /sandbox/mail; outages answer 421."""

from collections.abc import AsyncIterator, Iterator
from email.message import EmailMessage

import aiosmtplib
import httpx
import pytest
import pytest_asyncio
from aiosmtpd.controller import Controller

from bench.ports import free_port
from sandbox.app import create_app
from sandbox.config import SandboxConfig
from sandbox.mail_sink import start_smtp_sink
from sandbox.store import Store

pytestmark = pytest.mark.asyncio


@pytest.fixture
def sink_config() -> SandboxConfig:
    return SandboxConfig(db_path=":memory:", smtp_port=free_port())


@pytest.fixture
def store() -> Iterator[Store]:
    shared = Store(":memory:")
    yield shared
    shared.close()


@pytest.fixture
def sink(sink_config: SandboxConfig, store: Store) -> Iterator[Controller]:
    controller = start_smtp_sink(sink_config, store)
    yield controller
    controller.stop()


@pytest_asyncio.fixture
async def http(sink_config: SandboxConfig, store: Store, sink: Controller) -> AsyncIterator[httpx.AsyncClient]:
    """The HTTP app sharing the sink's store, as `python -m sandbox` wires them."""
    app = create_app(sink_config, store=store)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://sandbox") as client:
        yield client


def message(*, html: bool = True) -> EmailMessage:
    mail = EmailMessage()
    mail["From"] = "noreply@lineup.test"
    mail["To"] = "ada@example.com, grace@example.com"
    mail["Subject"] = "Your line is active"
    mail["Message-ID"] = "<welcome-1@lineup.test>"
    mail["X-Idempotency-Key"] = "enrollment-E1-welcome"
    mail.set_content("plain version")
    if html:
        mail.add_alternative("<p>html version</p>", subtype="html")
    return mail


async def send(config: SandboxConfig, mail: EmailMessage) -> None:
    await aiosmtplib.send(mail, hostname="127.0.0.1", port=config.smtp_port, timeout=5)


async def test_mail_with_two_recipients_is_listed(http: httpx.AsyncClient, sink_config: SandboxConfig) -> None:
    await send(sink_config, message())
    listed = (await http.get("/sandbox/mail")).json()["messages"]
    assert len(listed) == 1
    mail = listed[0]
    assert mail["mail_from"] == "noreply@lineup.test"
    assert mail["recipients"] == ["ada@example.com", "grace@example.com"]
    assert mail["to_header"] == "ada@example.com, grace@example.com"
    assert mail["subject"] == "Your line is active"
    assert mail["message_id"] == "<welcome-1@lineup.test>"
    assert mail["idempotency_key"] == "enrollment-E1-welcome"
    assert mail["body"].strip() == "<p>html version</p>"
    assert mail["id"] and mail["received_at"]


async def test_mail_plain_body_and_order_and_filter(http: httpx.AsyncClient, sink_config: SandboxConfig) -> None:
    await send(sink_config, message(html=False))
    second = message()
    del second["To"]
    second["To"] = "grace@example.com"
    await send(sink_config, second)
    listed = (await http.get("/sandbox/mail")).json()["messages"]
    assert [m["body"].strip() for m in listed] == ["plain version", "<p>html version</p>"]
    only_grace = (await http.get("/sandbox/mail", params={"to": "Grace@Example.com"})).json()["messages"]
    assert len(only_grace) == 2
    only_ada = (await http.get("/sandbox/mail", params={"to": "ada@example.com"})).json()["messages"]
    assert [m["id"] for m in only_ada] == [listed[0]["id"]]
    assert (await http.delete("/sandbox/mail")).status_code == 200
    assert (await http.get("/sandbox/mail")).json() == {"messages": []}


async def test_smtp_outage_answers_421_until_available(http: httpx.AsyncClient, sink_config: SandboxConfig) -> None:
    assert (await http.post("/sandbox/smtp", json={"available": False})).json() == {"available": False}
    assert (await http.get("/sandbox/smtp")).json() == {"available": False}
    with pytest.raises(aiosmtplib.SMTPResponseException) as refused:
        await send(sink_config, message())
    assert refused.value.code == 421 and "Service not available" in refused.value.message
    assert (await http.get("/sandbox/mail")).json() == {"messages": []}
    assert (await http.post("/sandbox/smtp", json={"available": True})).json() == {"available": True}
    await send(sink_config, message())
    assert len((await http.get("/sandbox/mail")).json()["messages"]) == 1
