"""The carrier's port-status push: when LINEUP_SANDBOX_PORT_PUSH_URL is set, every change of a port's status
(RESOLUTION_REQUIRED at submission, CONFIRMED at half of port_complete_seconds, COMPLETED at all of it,
CANCELLED) is POSTed there as `{"vendor_id", "port_id", "enrollment_id", "status"}`, signed with
LINEUP_SANDBOX_PORT_PUSH_SECRET in `X-Carrier-Signature: t=<unix time>,v1=<hex HMAC-SHA256 of "t.body">`
(Lineup's `/carrier/port-status`, which refuses an old timestamp and takes a push once). Pushes are timers in
the sandbox's process: a restart loses the pending ones, as a real carrier's push can be lost, which is why
Lineup keeps polling as a fallback. Failed deliveries are tried three times, a second apart, under the same
signature: a push Lineup took whose answer was lost is not taken twice."""

import asyncio
import hashlib
import hmac
import json
import logging
import time
from collections.abc import Callable

import httpx

from sandbox.config import SandboxConfig
from sandbox.store import Row, Store

log = logging.getLogger("sandbox.port_push")
ATTEMPTS = 3
SLACK_S = 0.05  # after the moment the status changes, so a read then sees the new one
_pending: set[asyncio.Task[None]] = set()


# What a push says about a port now ({vendor_id, port_id, enrollment_id, status}); None if it is gone. Given by
# sandbox.ports, which computes statuses (and imports this module).
Reader = Callable[[SandboxConfig, Store, str], Row | None]


def schedule(config: SandboxConfig, store: Store, port: Row, read: Reader, *, cancelled: bool = False) -> None:
    """The pushes this port's current stage will make (none when pushing is off or the port never moves)."""
    if not config.port_push_url:
        return
    if cancelled or port["stage"] == "RESOLUTION_REQUIRED":
        delays = [SLACK_S]
    elif port["stuck"] or port["stage"] != "SUBMITTED":
        delays = []
    else:
        delays = [config.port_complete_seconds / 2 + SLACK_S, config.port_complete_seconds + SLACK_S]
    for delay in delays:
        task = asyncio.get_running_loop().create_task(_push_after(delay, config, store, str(port["port_id"]), read))
        _pending.add(task)
        task.add_done_callback(_pending.discard)


def signed(secret: str, body: bytes) -> str:
    """The signature of `body` now: the timestamp signed with it, so a replay later is known for one."""
    timestamp = int(time.time())
    digest = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={digest}"


async def _push_after(delay: float, config: SandboxConfig, store: Store, port_id: str, read: Reader) -> None:
    await asyncio.sleep(delay)
    document = read(config, store, port_id)
    if document is None:
        return
    body = json.dumps(document).encode()
    headers = {"Content-Type": "application/json", "X-Carrier-Signature": signed(config.port_push_secret, body)}
    async with httpx.AsyncClient(timeout=5) as http:
        for attempt in range(1, ATTEMPTS + 1):
            try:
                answer = await http.post(config.port_push_url, content=body, headers=headers)
                if answer.status_code < 500:
                    return
            except httpx.HTTPError as problem:
                log.info("port push %s attempt %d failed: %s", port_id, attempt, problem)
            await asyncio.sleep(1.0)
