"""`POST /carrier/port-status`: the carrier's port-status push, answered in the envelope (services.porting.push)."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from api.probes import envelope
from dispatch.context import Resources
from models.envelope import Envelope, MsgCode
from services.porting.push import SIGNATURE_HEADER, PushRefused, port_pushed


async def port_status_pushed(request: Request) -> Response:
    resources: Resources = request.app.state.resources
    try:
        said = await port_pushed(resources, await request.body(), request.headers.get(SIGNATURE_HEADER))
    except PushRefused as refused:
        return envelope(Envelope(MsgCode.ERROR, refused.reason), refused.status)
    return envelope(Envelope(MsgCode.SUCCESS, said))


def routes(base_path: str) -> list[Route]:
    return [Route(f"{base_path}/carrier/port-status", port_status_pushed, methods=["POST"])]
