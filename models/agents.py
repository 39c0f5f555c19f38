"""The agents domain's data, what agents do: the locations they report, their signatures, the notes they write on
a customer's account (encrypted: they may hold PII), their password changes with the proof images, and the
requests and answers of those actions and of `/cards` (a customer's saved cards, masked)."""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Annotated

from pydantic import ConfigDict, Field, model_validator
from pydantic_core import PydanticCustomError
from sqlmodel import Field as Column
from sqlmodel import SQLModel

from models.envelope import Shape
from models.payment import SavedCard as SavedCardRow
from models.settings import MiB
from models.types import (
    ActionRequest,
    ActivityType,
    Alnum,
    BlankIsAbsent,
    CustomerId,
    IpAddress,
    JsonSchema,
    Latitude,
    Longitude,
    NoteText,
    Numeric,
    Otp,
    Plain,
    Secret,
    Text32,
    Text100,
    Text254,
    ZeroOne,
    blank,
    fail,
    utcnow,
)

PROOF_KINDS = ("worksite_proof", "table_proof", "agent_change_password")
HOLDER_FIELDS = ("name_on_card", "address1", "address2", "zip", "city", "state", "country")  # a saved card's, sealed
IMAGE_MAGIC = {"image/png": b"\x89PNG\r\n\x1a\n", "image/jpeg": b"\xff\xd8\xff"}
_DATA_URI = re.compile(r"data:([\w.+-]+/[\w.+-]+)?;base64,", re.IGNORECASE)
_BASE64 = re.compile(r"[A-Za-z0-9+/]*={0,2}")


class AgentLocation(SQLModel, table=True):
    __tablename__ = "agent_location"

    id: int | None = Column(default=None, primary_key=True)
    agent_id: int = Column(foreign_key="agent.id", index=True)
    vendor_id: int = Column(foreign_key="vendor.id")
    latitude: str = Column(max_length=32)
    longitude: str = Column(max_length=32)
    ip_address: str | None = Column(default=None, max_length=45)
    login_log_id: int | None = Column(default=None, foreign_key="login_log.id")
    reported_by: int = Column(foreign_key="agent.id")  # the agent_id of the call
    recorded_at: datetime = Column(default_factory=utcnow)


class Signature(SQLModel, table=True):
    __tablename__ = "signature"

    id: int | None = Column(default=None, primary_key=True)
    idempotency_key: str | None = Column(default=None, max_length=100, unique=True)  # from external_transaction_id
    vendor_id: int = Column(foreign_key="vendor.id", index=True)
    agent_id: int = Column(foreign_key="agent.id", index=True)  # who saved it: check_signature's "on file"
    enrollment_id: str | None = Column(default=None, foreign_key="enrollment.enrollment_id", max_length=24, index=True)
    media_type: str = Column(max_length=16)
    sha256: str = Column(max_length=64)
    image: bytes
    created_at: datetime = Column(default_factory=utcnow)


class Note(SQLModel, table=True):
    __tablename__ = "note"

    id: int | None = Column(default=None, primary_key=True)
    idempotency_key: str | None = Column(default=None, max_length=100, unique=True)  # from external_transaction_id
    vendor_id: int = Column(foreign_key="vendor.id", index=True)
    enrollment_id: str = Column(foreign_key="line.enrollment_id", max_length=24, index=True)
    customer_id: str = Column(max_length=16, index=True)
    text: str  # encrypted
    latitude: str = Column(max_length=32)
    longitude: str = Column(max_length=32)
    is_activity: bool = False
    activity_type: str | None = Column(default=None, max_length=100)
    agent_id: int | None = Column(default=None, foreign_key="agent.id")  # the author, when an agent was named
    api_user_id: int = Column(foreign_key="api_user.id")  # the token's user: the author otherwise
    created_at: datetime = Column(default_factory=utcnow)


class PasswordChange(SQLModel, table=True):
    __tablename__ = "password_change"

    id: int | None = Column(default=None, primary_key=True)
    idempotency_key: str | None = Column(default=None, max_length=100, unique=True)  # from external_transaction_id
    vendor_id: int = Column(foreign_key="vendor.id", index=True)
    agent_id: int = Column(foreign_key="agent.id", index=True)
    api_user_id: int = Column(foreign_key="api_user.id")  # the token's user
    latitude: str = Column(max_length=32)
    longitude: str = Column(max_length=32)
    mail_outbox_id: int | None = Column(default=None, foreign_key="mail_outbox.id")  # the e-mail with the password
    changed_at: datetime = Column(default_factory=utcnow)


class ProofImageRow(SQLModel, table=True):
    """One proof of one password change; its bytes are the ProofBlob of its digest, kept once however often sent."""

    __tablename__ = "proof_image"

    id: int | None = Column(default=None, primary_key=True)
    password_change_id: int = Column(foreign_key="password_change.id", index=True)
    kind: str = Column(max_length=32)  # one of PROOF_KINDS
    media_type: str = Column(max_length=16)
    sha256: str = Column(max_length=64, foreign_key="proof_blob.sha256", index=True)


class ProofBlob(SQLModel, table=True):
    """A proof image's bytes, by their SHA-256: an image sent again (by any agent) is stored once. Purged with
    the last proof naming it, LINEUP_PROOF_RETENTION_DAYS after its change."""

    __tablename__ = "proof_blob"

    sha256: str = Column(primary_key=True, max_length=64)
    media_type: str = Column(max_length=16)
    image: bytes
    created_at: datetime = Column(default_factory=utcnow)


@dataclass(frozen=True, repr=False)
class Image:
    """A decoded PNG or JPEG; repr never shows the bytes (they may reach a log through an error)."""

    media_type: str  # image/png or image/jpeg
    content: bytes

    def __repr__(self) -> str:
        return f"Image({self.media_type}, {len(self.content)} bytes)"


def image(limit: int) -> Plain:
    """A required base64 PNG or JPEG (data-URI form allowed) of at most `limit` bytes, checked by its magic
    bytes; the field's value is the decoded Image."""

    def check(value: object) -> Image:
        if value is None or (isinstance(value, str) and not value.strip()):
            raise blank()
        if not isinstance(value, str):
            raise fail("must be base64 text")
        text, declared = value.strip(), None
        if prefix := _DATA_URI.match(text):
            declared = (prefix.group(1) or "").lower().replace("image/jpg", "image/jpeg")
            text = text[prefix.end() :]
        text = "".join(text.split())  # whitespace base64 may carry (str.split: a 4 MiB image in 6 ms, re.sub 94)
        # Refused before decoding: base64 is 4 characters per 3 bytes.
        if len(text) // 4 * 3 > limit + 3:
            raise fail(f"must be at most {limit // MiB} MiB once decoded")
        if not _BASE64.fullmatch(text):
            raise fail("must be base64 data (a data URI is allowed)")
        try:
            content = base64.b64decode(text + "=" * (-len(text) % 4), validate=True)
        except binascii.Error:
            raise fail("must be base64 data (a data URI is allowed)") from None
        if len(content) > limit:
            raise fail(f"must be at most {limit // MiB} MiB once decoded")
        media_type = next((kind for kind, magic in IMAGE_MAGIC.items() if content.startswith(magic)), None)
        if media_type is None:
            raise fail("must be a PNG or JPEG image")
        if declared and declared != media_type:
            raise fail(f"is declared as {declared} but holds a {media_type.removeprefix('image/').upper()} image")
        return Image(media_type, content)

    description = f"base64 PNG or JPEG, at most {limit // MiB} MiB"
    schema: JsonSchema = {"type": "string", "contentEncoding": "base64", "description": description}
    return Plain(check, schema | {"examples": ["data:image/png;base64,iVBORw0KGgo..."]})


SignatureImage = Annotated[Image, image(2 * MiB)]
ProofImage = Annotated[Image, image(1 * MiB)]  # three a call, kept for LINEUP_PROOF_RETENTION_DAYS


class Coordinate(BlankIsAbsent):
    """Where the agent was: both values required, in range (JSON numbers or strings)."""

    model_config = ConfigDict(extra="ignore")

    latitude: Latitude = Field(examples=["33.7490"])
    longitude: Longitude = Field(examples=["-84.3880"])


class UpdateLocationCoordinate(ActionRequest):
    """Records where an agent is, optionally against the login-log entry of this session."""

    username: Text100 = Field(examples=["demo.agent"])
    latitude: Latitude = Field(examples=["33.7490"])
    longitude: Longitude = Field(examples=["-84.3880"])
    ip_address: IpAddress | None = Field(default=None, examples=["203.0.113.7"])
    login_log_otp: Otp | None = Field(default=None, examples=["123456"])


class SaveSignature(ActionRequest):
    """Stores the acting agent's signature image, optionally for one enrollment; answers its id."""

    signature: SignatureImage
    enroll_id: Alnum | None = None

    def __repr__(self) -> str:
        return f"SaveSignature(enroll_id={self.enroll_id!r})"


class CheckSignature(ActionRequest):
    """Confirms a signature is on file, under one of the vendor's open login-log entries."""

    enroll_id: Alnum | None = None
    signature_id: Numeric | None = Field(default=None, examples=["12"])
    login_log_otp: Otp = Field(examples=["123456"])


class AddNotes(ActionRequest):
    """A note on a customer's account; without agent_id the token's API user is its author."""

    customer_id: CustomerId
    enrollment_id: Alnum
    customer_notes: NoteText
    coordinate: Coordinate
    is_activity: ZeroOne | None = None
    activity_type: ActivityType | None = None

    def __repr__(self) -> str:  # the note may hold PII
        return f"AddNotes(enrollment_id={self.enrollment_id!r})"


class SavedCardList(ActionRequest):
    """A customer's saved cards, masked; the customer logs in with the line's e-mail and password."""

    vendor_id: Text32 | None = Field(default=None, examples=["DEMO"])
    enrollment_id: Alnum
    username: Text254 = Field(examples=["pat@example.com"])
    password: Secret
    card_id: Numeric | None = Field(default=None, examples=["12"])

    def __repr__(self) -> str:  # never the password
        return f"SavedCardList(enrollment_id={self.enrollment_id!r}, card_id={self.card_id!r})"


class AgentChangePassword(ActionRequest):
    """Three proof images and where the agent is; a new password is generated and e-mailed to the agent."""

    worksite_proof: ProofImage
    table_proof: ProofImage
    agent_change_password: ProofImage
    latitude: Latitude | None = None
    longitude: Longitude | None = None
    coordinate: Coordinate | None = None

    @model_validator(mode="after")
    def _one_location(self) -> AgentChangePassword:
        if (self.latitude is None) != (self.longitude is None):
            raise PydanticCustomError("rule", "Latitude and Longitude must be sent together")
        if self.latitude is None and self.coordinate is None:
            raise PydanticCustomError("rule", "Please enter Latitude and Longitude, or a Coordinate object")
        return self

    def location(self) -> tuple[str, str]:
        """(latitude, longitude): the top-level pair when sent, else the coordinate object's."""
        if self.latitude is not None and self.longitude is not None:
            return self.latitude, self.longitude
        assert self.coordinate is not None  # _one_location
        return self.coordinate.latitude, self.coordinate.longitude

    def __repr__(self) -> str:
        return "AgentChangePassword()"


class SignatureSaved(Shape):
    signature_id: str


class NoteAdded(Shape):
    notes_id: str


class SavedCard(Shape):
    """Interface section 2.6, masked: the last four digits, and an empty cvv (none is ever stored)."""

    id: str
    status: str
    card_number: str
    cvv: str
    name_on_card: str
    card_type: str
    exp_month: str
    exp_year: str
    address1: str
    address2: str
    zip: str
    city: str
    state: str
    country: str
    is_expired: str
    is_primary: str

    @classmethod
    def of(cls, card: SavedCardRow, holder: dict[str, str], *, primary: bool, today: date) -> SavedCard:
        """A stored card as channels read it (PCI DSS: never the full number, never a CVV)."""
        expired = (int(card.exp_year), int(card.exp_month)) < (today.year, today.month)
        return cls(
            id=str(card.id),
            status=card.status,
            card_number="*" * 12 + card.last4,
            cvv="",
            card_type=card.brand,
            exp_month=card.exp_month,
            exp_year=card.exp_year,
            is_expired="Y" if expired else "N",
            is_primary="Y" if primary else "N",
            **{name: holder.get(name, "") for name in HOLDER_FIELDS},  # blank when the holder did not give it
        )


SIGNATURE_SAVED = SignatureSaved(signature_id="12")
NOTE_ADDED = NoteAdded(notes_id="31")
SAVED_CARD = SavedCard(
    id="7",
    status="Y",
    card_number="************1111",
    cvv="",
    name_on_card="Pat Lee",
    card_type="Visa",
    exp_month="12",
    exp_year="2030",
    address1="12 Main St",
    address2="",
    zip="30301",
    city="Atlanta",
    state="GA",
    country="US",
    is_expired="N",
    is_primary="Y",
)
