"""`/agent` save_signature and check_signature: image rules, the login-log OTP, ids as numbers or strings."""

from __future__ import annotations

import pytest
from sqlmodel import select

from models.agents import Signature
from tests.support.builders import body
from tests.support.images import GIF, JPEG, b64, data_uri, png
from tests.support.lines import SUPPORT

DEMO = {"vendor_id": "DEMO", "username": "demo.api", "password": "demo-pass-1", "pin": "1234"}
OTHER = {"vendor_id": "OTHER", "username": "other.api", "password": "other-pass-1", "pin": "4321"}
MiB = 1024 * 1024


async def otp(api, credentials=DEMO) -> int:
    """An open login-log entry's OTP, as the sample sends it (a number)."""
    return int((await api.post("/authenticate", credentials)).json()["data"]["login_log_otp"])


async def saved(api, **overrides) -> str:
    envelope = await api.call("/agent", body("save_signature", **overrides))
    assert envelope["msg_code"] == "RESTAPI000", envelope
    signature_id: str = envelope["data"]["signature_id"]
    return signature_id


def check(code, **overrides):
    return body("check_signature", login_log_otp=code, **overrides)


def assert_refused(envelope, error):
    assert (envelope["msg_code"], envelope["msg"], envelope["errors"]) == ("RESTAPI110", "Error occurred", [error])


@pytest.mark.parametrize(
    ("good", "bad", "error"),
    [
        (data_uri(png()), data_uri(GIF, "image/gif"), "Signature must be a PNG or JPEG image"),
        (b64(JPEG), b64(b"%PDF-1.7 not an image"), "Signature must be a PNG or JPEG image"),
        (
            data_uri(JPEG, "image/jpeg"),
            "data:image/png;base64,%%%not-base64%%%",
            "Signature must be base64 data (a data URI is allowed)",
        ),
        (
            data_uri(JPEG, "image/jpg"),
            data_uri(JPEG, "image/png"),
            "Signature is declared as image/png but holds a JPEG image",
        ),
        ("\n".join(b64(png()).partition("A")), "", "Please enter Signature"),
    ],
)
async def test_save_signature_signature_rule(api, good, bad, error):
    assert (await api.call("/agent", body("save_signature", signature=good)))["msg_code"] == "RESTAPI000"
    assert_refused(await api.call("/agent", body("save_signature", signature=bad)), error)


@pytest.mark.parametrize("settings_overrides", [{"max_body_bytes": 4 * MiB}])
async def test_save_signature_is_at_most_2_mib_decoded(api):
    fits = png(padding=2 * MiB - len(png()))
    assert (await api.call("/agent", body("save_signature", signature=b64(fits))))["msg_code"] == "RESTAPI000"
    too_large = await api.call("/agent", body("save_signature", signature=b64(fits + b"\x00")))
    assert_refused(too_large, "Signature must be at most 2 MiB once decoded")


async def test_save_signature_stores_the_decoded_image_for_the_agent(api):
    signature_id = await saved(api, signature=data_uri(JPEG, "image/jpeg"))
    async with api.db.transaction() as session:
        stored = await session.get(Signature, int(signature_id))
    assert (stored.image, stored.media_type, stored.enrollment_id) == (JPEG, "image/jpeg", None)


async def test_save_signature_enroll_id_must_be_an_issued_enrollment_of_the_vendor(api):
    issued = await api.call("/enrollment", body("check_service_availability"))
    enrollment_id = issued["data"]["enrollment_id"]
    signature_id = await saved(api, enroll_id=enrollment_id)
    async with api.db.transaction() as session:
        assert (await session.get(Signature, int(signature_id))).enrollment_id == enrollment_id
    assert_refused(
        await api.call("/agent", body("save_signature", enroll_id="ENOSUCH1")),
        "Invalid enrollment id ENOSUCH1. Please provide a valid enrollment ID.",
    )
    assert_refused(
        await api.call("/agent", body("save_signature", enroll_id="E-1")), "Enroll Id must be letters and digits only"
    )


async def test_save_signature_repeated_transaction_id_answers_the_first_signature(api):
    first = await saved(api, external_transaction_id="SIG1")
    assert await saved(api, external_transaction_id="SIG1") == first
    assert await saved(api, external_transaction_id="SIG2") != first


@pytest.mark.parametrize("as_number", [True, False])
async def test_check_signature_saved_then_verified_by_id(api, as_number):
    signature_id = await saved(api)
    code = await otp(api)
    envelope = await api.call(
        "/agent", check(code if as_number else str(code), signature_id=int(signature_id) if as_number else signature_id)
    )
    assert (envelope["msg_code"], envelope["msg"]) == ("RESTAPI000", "Signature verified")
    assert envelope["token"]


async def test_check_signature_unknown_id_is_refused(api):
    signature_id = await saved(api)
    assert_refused(
        await api.call("/agent", check(await otp(api), signature_id=int(signature_id) + 1)), "Signature not found"
    )


async def test_check_signature_wrong_or_missing_otp_is_refused(api):
    signature_id = await saved(api)
    code = await otp(api)
    wrong = 100000 if code != 100000 else 100001
    assert_refused(await api.call("/agent", check(wrong, signature_id=signature_id)), "Please provide valid otp")
    assert_refused(await api.call("/agent", check(None, signature_id=signature_id)), "Please enter Login log OTP")
    # Another vendor's open entry is not this vendor's.
    assert_refused(
        await api.call("/agent", check(await otp(api, OTHER), signature_id=signature_id)), "Please provide valid otp"
    )


async def test_check_signature_id_must_be_numeric(api):
    assert_refused(await api.call("/agent", check(await otp(api), signature_id="12a")), "Signature Id must be numeric")


async def test_check_signature_without_id_needs_the_agents_own_signature(api):
    code = await otp(api)
    assert_refused(await api.call("/agent", check(code)), "Signature not found")
    await saved(api)
    assert (await api.call("/agent", check(code)))["msg"] == "Signature verified"
    # Another agent of the vendor has none on file.
    assert_refused(await api.call("/agent", check(code, **SUPPORT)), "Signature not found")


async def test_check_signature_must_belong_to_enroll_id_when_given(api):
    first = (await api.call("/enrollment", body("check_service_availability")))["data"]["enrollment_id"]
    second = (await api.call("/enrollment", body("check_service_availability")))["data"]["enrollment_id"]
    signature_id = await saved(api, enroll_id=first)
    code = await otp(api)
    assert (await api.call("/agent", check(code, signature_id=signature_id, enroll_id=first)))[
        "msg_code"
    ] == "RESTAPI000"
    assert_refused(
        await api.call("/agent", check(code, signature_id=signature_id, enroll_id=second)), "Signature not found"
    )


async def test_check_signature_of_another_vendor_is_not_found(api):
    other = await api.call("/agent", body("save_signature", agent_id="other.agent"), vendor="OTHER")
    assert other["msg_code"] == "RESTAPI000"
    assert_refused(
        await api.call("/agent", check(await otp(api), signature_id=other["data"]["signature_id"])),
        "Signature not found",
    )
    async with api.db.transaction() as session:
        assert len((await session.exec(select(Signature))).all()) == 1
