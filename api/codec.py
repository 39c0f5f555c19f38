"""The codec endpoint for operators who hold the key: `POST /codec/decode` and `/codec/encode` speak Temporal's
codec server protocol (the body and the answer are the JSON form of `temporal.api.common.v1.Payloads`), so the
Temporal UI (its "Codec Server" setting) and `temporal workflow show --codec-endpoint … --codec-auth 'Bearer …'`
show the payloads that orchestration.codec encrypts. Off unless LINEUP_CODEC_TOKEN is set; every call must carry
it as a bearer token. The UI calls it from the browser, so the origins in LINEUP_CODEC_ORIGINS get CORS."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable

import pydantic_core
from cryptography.exceptions import InvalidTag
from google.protobuf.json_format import MessageToJson, Parse, ParseError
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route
from temporalio.api.common.v1 import Payloads

from models.crypto import load_key
from models.envelope import Envelope, MsgCode
from models.settings import Settings
from orchestration.codec import PayloadCipher

JSON = "application/json"
ALLOWED_HEADERS = "Content-Type, X-Namespace, Authorization, Authorization-Extras"


class CodecEndpoint:
    """Both routes of one app; the key is read once, when the app is built."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.token = settings.temporal.codec_token.get_secret_value()
        self.cipher = PayloadCipher(load_key(settings)) if self.token else None

    def routes(self, base_path: str) -> list[Route]:
        return [
            Route(f"{base_path}/codec/{direction}", self.handler(direction), methods=["POST", "OPTIONS"])
            for direction in ("encode", "decode")
        ]

    def handler(self, direction: str) -> Callable[[Request], Awaitable[Response]]:
        async def codec(request: Request) -> Response:
            return await self.answer(request, direction)

        return codec

    async def answer(self, request: Request, direction: str) -> Response:
        if self.cipher is None:
            return refusal("The codec endpoint is off (LINEUP_CODEC_TOKEN)", 404)
        origin = request.headers.get("origin")
        cors = self.cors(origin)
        if origin is not None and cors is None:
            return refusal("Origin not allowed", 403)
        if request.method == "OPTIONS":  # the browser's preflight: no credentials in it
            return Response(status_code=204, headers=cors)
        offered = request.headers.get("authorization", "")
        if not secrets.compare_digest(offered.encode(), f"Bearer {self.token}".encode()):
            return refusal("Unauthorized", 401, cors)
        namespace = request.headers.get("x-namespace")
        if namespace is not None and namespace != self.settings.temporal.namespace:
            return refusal(f"Namespace {namespace} is not Lineup's", 400, cors)
        try:
            payloads = Parse(await request.body(), Payloads())
        except (ParseError, UnicodeDecodeError):
            return refusal("The body must be the JSON form of temporal.api.common.v1.Payloads", 400, cors)
        try:
            if direction == "encode":
                done = await self.cipher.encode(payloads.payloads)
            else:
                done = await self.cipher.decode(payloads.payloads)
        except (InvalidTag, ValueError):  # another key sealed it, or the data was altered
            return refusal("A payload cannot be decrypted with this key", 400, cors)
        body = MessageToJson(Payloads(payloads=done), indent=None)
        return Response(body, media_type=JSON, headers=cors)

    def cors(self, origin: str | None) -> dict[str, str] | None:
        """The CORS headers for an allowed origin; None for another (a call without Origin needs none)."""
        if origin is None or origin.rstrip("/") not in self.settings.temporal.codec_origin_set:
            return None if origin is not None else {}
        return {
            "Access-Control-Allow-Origin": origin,
            "Access-Control-Allow-Methods": "POST, OPTIONS",
            "Access-Control-Allow-Headers": ALLOWED_HEADERS,
            "Access-Control-Allow-Credentials": "true",
            "Access-Control-Max-Age": "600",
            "Vary": "Origin",
        }


def refusal(message: str, status: int, headers: dict[str, str] | None = None) -> Response:
    body = pydantic_core.to_json(Envelope(MsgCode.ERROR, message).body())
    return Response(body, status_code=status, media_type=JSON, headers=headers)
