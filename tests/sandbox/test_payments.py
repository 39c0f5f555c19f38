"""Payment gateway stand-in: approvals, declines, idempotency, and no card data at rest."""

from pathlib import Path

import httpx
import pytest

from sandbox.app import create_app
from sandbox.config import SandboxConfig
from tests.support.sandbox_bodies import charge, key

pytestmark = pytest.mark.asyncio


@pytest.mark.parametrize(
    ("number", "brand"),
    [
        ("4111111111111111", "Visa"),
        ("5555555555554444", "Mastercard"),
        ("2223003122003222", "Mastercard"),
        ("378282246310005", "American Express"),
        ("6011111111111117", "Discover"),
        ("3530111333300000", "Card"),
    ],
)
async def test_charge_approves_luhn_valid_cards(client: httpx.AsyncClient, number: str, brand: str) -> None:
    answer = (await client.post("/payments/charges", json=charge(card_number=number), headers=key())).json()
    assert answer["status"] == "approved"
    assert answer["brand"] == brand and answer["last4"] == number[-4:]
    assert answer["amount_cents"] == 2500
    assert answer["transaction_id"] and answer["payment_token"]
    assert number not in str(answer)


@pytest.mark.parametrize(
    ("overrides", "reason"),
    [
        ({"cvv": "000"}, "CVV mismatch"),
        ({"exp_month": "01", "exp_year": "2020"}, "Card expired"),
        ({"exp_month": "13", "exp_year": "2099"}, "Card expired"),
        ({"card_number": "4111111111111112"}, "Invalid card number"),
    ],
)
async def test_charge_declines(client: httpx.AsyncClient, overrides: dict[str, str], reason: str) -> None:
    answer = (await client.post("/payments/charges", json=charge(**overrides), headers=key())).json()
    assert answer == {"status": "declined", "reason": reason}


async def test_charge_same_key_same_answer(client: httpx.AsyncClient) -> None:
    headers = key()
    first = (await client.post("/payments/charges", json=charge(), headers=headers)).json()
    again = (await client.post("/payments/charges", json=charge(), headers=headers)).json()
    assert first["status"] == "approved" and again == first


async def test_charge_without_idempotency_key_is_400(client: httpx.AsyncClient) -> None:
    assert (await client.post("/payments/charges", json=charge())).status_code == 400


async def test_charge_validation_error_does_not_echo_card(client: httpx.AsyncClient) -> None:
    response = await client.post("/payments/charges", json=charge(amount_cents="lots"), headers=key())
    assert response.status_code == 422
    assert "4111111111111111" not in response.text and "amount_cents" in response.text


async def test_no_card_number_or_cvv_at_rest(tmp_path: Path) -> None:
    db_path = tmp_path / "sandbox.db"
    app = create_app(SandboxConfig(db_path=str(db_path)))
    pan, cvv, name = "5555555555554444", "9731", "Zebulon Quartermaine"
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://sandbox") as http:
        approved = await http.post(
            "/payments/charges", json=charge(card_number=pan, cvv=cvv, name_on_card=name), headers=key()
        )
        declined = await http.post("/payments/charges", json=charge(card_number=pan, cvv="000"), headers=key())
    assert approved.json()["status"] == "approved" and declined.json()["status"] == "declined"
    stored = b"".join(path.read_bytes() for path in tmp_path.iterdir())  # noqa: ASYNC240 — a test reading its own files
    assert b"4444" in stored  # the last four are kept, so the records really are in these files
    assert pan.encode() not in stored
    assert f'"{cvv}"'.encode() not in stored and b'"cvv"' not in stored
    assert name.encode() not in stored
    app.state.store.close()


async def test_lookup_finds_a_charge_by_its_key_and_void_returns_the_money(client: httpx.AsyncClient) -> None:
    headers = key()
    charged = (await client.post("/payments/charges", json=charge(), headers=headers)).json()
    reference = {"key": headers["Idempotency-Key"]}
    assert (await client.post("/payments/charges/lookup", json=reference)).json() == charged
    voided = (await client.post("/payments/charges/void", json=reference)).json()
    assert voided == {**charged, "status": "voided"}
    assert (await client.post("/payments/charges/void", json=reference)).json() == voided  # a repeat: the same
    assert (await client.post("/payments/charges/lookup", json=reference)).json() == voided
    again = (await client.post("/payments/charges", json=charge(), headers=headers)).json()
    assert again == voided  # the key stays spent: a voided charge is never made again


async def test_lookup_and_void_of_a_key_never_charged_is_unknown(client: httpx.AsyncClient) -> None:
    reference = {"key": "never-charged"}
    assert (await client.post("/payments/charges/lookup", json=reference)).json() == {"status": "unknown"}
    assert (await client.post("/payments/charges/void", json=reference)).json() == {"status": "unknown"}


async def test_a_declined_charge_is_not_voided(client: httpx.AsyncClient) -> None:
    headers = key()
    declined = (await client.post("/payments/charges", json=charge(cvv="000"), headers=headers)).json()
    reference = {"key": headers["Idempotency-Key"]}
    assert (await client.post("/payments/charges/void", json=reference)).json() == declined
