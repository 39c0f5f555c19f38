"""argon2id hashing for passwords and PINs, off the event loop (each hash costs tens of milliseconds)."""

from __future__ import annotations

import asyncio

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

# argon2id at OWASP's recommended minimum (19 MiB, 2 passes, 1 lane): ~50 ms a hash here, so a 10-line
# request with customer passwords stays interactive. Parameters live in each hash: raising them later
# only needs `check_needs_rehash` on the next login.
_hasher = PasswordHasher(time_cost=2, memory_cost=19456, parallelism=1)

# Verifying against this when the user does not exist keeps a wrong username as slow as a wrong password.
_DUMMY = _hasher.hash("no-such-user")


def hash_secret(secret: str) -> str:
    return _hasher.hash(secret)


def verify_secret(stored: str | None, offered: str) -> bool:
    try:
        return _hasher.verify(stored or _DUMMY, offered) and stored is not None
    except (VerificationError, InvalidHashError):
        return False


async def verify_secret_async(stored: str | None, offered: str) -> bool:
    return await asyncio.to_thread(verify_secret, stored, offered)


async def hash_secret_async(secret: str) -> str:
    return await asyncio.to_thread(hash_secret, secret)


def login_secret(password: str, pin: str) -> str:
    """What an API user's login_hash is the hash of: password and PIN, one argon2 for both. The password's
    length goes first, so no two pairs give one secret."""
    return f"{len(password)}:{password}{pin}"
