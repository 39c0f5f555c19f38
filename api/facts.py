"""What one request learns about itself as it goes (its id, its unit of work, the action, the caller, the
answer's code and token), in one typed object: the edge middleware makes it, the dispatcher and the console fill
it in, and the edge logs, counts and audits from it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from starlette.requests import Request
from starlette.types import Scope

from persistence.uow import UnitOfWork

KEY = "facts"


@dataclass
class Facts:
    request_id: str
    uow: UnitOfWork
    started: float  # perf_counter() when the request arrived
    action: str | None = None
    vendor_id: int | None = None
    api_user_id: int | None = None
    agent: str | None = None
    msg_code: str | None = None  # set once an envelope answered
    status: int | None = None
    fresh_token: str | None = None  # the token the answer carries (past the token check)
    token_failure: str | None = None  # why the token check refused: missing, unknown, used, expired
    external_transaction_id: str | None = None  # echoed back when the body carried a well-formed one
    database_down: bool = False  # an outage answered: no audit row (writing it would wait on the same outage)
    audited: bool = False  # the dispatcher wrote the audit row in the request's own transaction
    outage: bool = False  # answered with an outage error (502, 503, 504 in rest mode): counted for the alerts


def facts_of(scope: Scope | Request) -> Facts:
    state = (scope.scope if isinstance(scope, Request) else scope)["state"]
    return cast(Facts, state[KEY])
