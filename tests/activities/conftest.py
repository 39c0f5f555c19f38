"""Activities alone with ActivityEnvironment: their adapters pointed at the session's sandbox, their rows made by
customer intake (tests.support.received), the database and cipher the worker would give them."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from activities.enrollment import EnrollmentActivities
from adapters.carrier import CarrierClient
from models.crypto import FieldCipher, cipher_for
from models.db import Database


@pytest.fixture
def settings_overrides(sandbox_url: str) -> dict[str, Any]:
    return {"carrier_base_url": f"{sandbox_url}/carrier"}


@pytest.fixture
async def db(settings: Any) -> AsyncIterator[Database]:
    database = Database(settings)
    yield database
    await database.dispose()


@pytest.fixture
async def carrier(settings: Any) -> AsyncIterator[CarrierClient]:
    client = CarrierClient(settings.systems.carrier_url)
    yield client
    await client.close()


@pytest.fixture
def cipher(settings: Any) -> FieldCipher:
    return cipher_for(settings)


@pytest.fixture
def activities(carrier: CarrierClient, db: Database, cipher: FieldCipher) -> EnrollmentActivities:
    return EnrollmentActivities(carrier, db, cipher)
