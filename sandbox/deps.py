"""Typed dependencies the routers share: the store, the config and the Idempotency-Key header."""

from typing import Annotated

from fastapi import Depends, Header, Request

from sandbox.config import SandboxConfig
from sandbox.store import Store


class MissingIdempotencyKey(Exception):
    """A state-changing call came without an Idempotency-Key header."""


def get_store(request: Request) -> Store:
    """The app's store."""
    store: Store = request.app.state.store
    return store


def get_config(request: Request) -> SandboxConfig:
    """The app's config."""
    config: SandboxConfig = request.app.state.config
    return config


async def require_idempotency_key(
    key: Annotated[str | None, Header(alias="Idempotency-Key")] = None,
) -> str:
    """The Idempotency-Key header; state-changing calls are refused without one."""
    if not key:
        raise MissingIdempotencyKey()
    return key


StoreDep = Annotated[Store, Depends(get_store)]
ConfigDep = Annotated[SandboxConfig, Depends(get_config)]
IdempotencyKey = Annotated[str, Depends(require_idempotency_key)]
