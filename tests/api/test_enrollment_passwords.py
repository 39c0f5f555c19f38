"""A create's customer passwords: argon2 once per distinct password of the request, each line's hash its own
password's."""

from __future__ import annotations

from unittest import mock

from models import passwords
from services.enrollment import intake


async def test_each_distinct_password_is_hashed_once_and_every_line_gets_its_own_passwords_hash():
    offered = ["family-pass-1", None, "family-pass-1", "other-pass-2", "family-pass-1", ""]
    with mock.patch.object(intake, "hash_secret", wraps=passwords.hash_secret) as hashing:
        hashed = await intake.hash_passwords(offered)
    assert sorted(call.args[0] for call in hashing.call_args_list) == ["family-pass-1", "other-pass-2"]
    assert hashed[1] is None and hashed[5] is None
    assert hashed[0] == hashed[2] == hashed[4] != hashed[3]
    for password, stored in zip(offered, hashed, strict=True):
        if password:
            assert stored is not None and await passwords.verify_secret_async(stored, password)
            assert not await passwords.verify_secret_async(stored, "wrong-pass-9")
