"""A codec server for the Temporal UI (and `temporal --codec-endpoint`): POST /decode with `{"payloads": [...]}` in
Temporal's JSON form. Whoever can reach it reads decrypted payloads, so:

- it listens on loopback by default and answers only requests whose Host header is one of its own names
  (127.0.0.1, localhost, [::1] and the names it is given): a page whose DNS name was rebound to 127.0.0.1 sends
  its own name, and is refused (400) before it reads anything;
- with OFFICE_CODEC_TOKEN set, a request must carry `Authorization: Bearer <token>` (CORS preflights excepted);
- POST /encode, which seals anything under the active key for whoever asks, exists only when enabled;
- CORS allows only the UI's origins.
It decodes plain payloads as they are (it shows what it is given; it executes nothing)."""

import hmac
import os

from google.protobuf import json_format
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Receive, Scope, Send
from temporalio.api.common.v1 import Payload
from temporalio.converter import PayloadCodec

from office.asgi import InProcessServer
from office.codec import CodecKeyError, EncryptionCodec

TOKEN_ENV = "OFFICE_CODEC_TOKEN"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]", "::1")


class BearerToken:
    """Refuses (401) a request without the token; a CORS preflight (OPTIONS) passes, it carries no headers."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app, self.expected = app, f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] != "OPTIONS":
            given = dict(scope["headers"]).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                response = JSONResponse({"error": f"missing or wrong bearer token ({TOKEN_ENV})"}, status_code=401)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)


def codec_app(
    codec: PayloadCodec,
    ui_origins: list[str],
    hosts: list[str] | None = None,
    token: str | None = None,
    allow_encode: bool = False,
) -> Starlette:
    """`hosts`: names besides the loopback ones this server is reached by; `token`: the bearer token (default
    OFFICE_CODEC_TOKEN); `allow_encode`: serve /encode too."""
    if isinstance(codec, EncryptionCodec):
        codec = codec.reading_plain()
    token = token if token is not None else os.environ.get(TOKEN_ENV) or None

    async def convert(request: Request, encode: bool) -> JSONResponse:
        try:
            body = await request.json()
            payloads = [json_format.ParseDict(p, Payload()) for p in body.get("payloads", [])]
        except (ValueError, TypeError, AttributeError, json_format.ParseError):
            return JSONResponse({"error": 'expected {"payloads": [...]} in Temporal\'s JSON form'}, status_code=400)
        try:
            out = await (codec.encode(payloads) if encode else codec.decode(payloads))
        except CodecKeyError as err:
            return JSONResponse({"error": str(err)}, status_code=400)
        return JSONResponse({"payloads": [json_format.MessageToDict(p) for p in out]})

    async def decode(request: Request) -> Response:
        return await convert(request, encode=False)

    async def encode(request: Request) -> Response:
        return await convert(request, encode=True)

    routes = [Route("/decode", decode, methods=["POST"])]
    if allow_encode:
        routes.append(Route("/encode", encode, methods=["POST"]))
    middleware = [
        Middleware(TrustedHostMiddleware, allowed_hosts=[*LOOPBACK_NAMES, *(hosts or [])]),
        Middleware(
            CORSMiddleware,
            allow_origins=ui_origins,
            allow_methods=["POST", "OPTIONS"],
            allow_headers=["content-type", "x-namespace", "authorization"],
            allow_credentials=True,
        ),
    ]
    if token:
        middleware.append(Middleware(BearerToken, token=token))
    return Starlette(routes=routes, middleware=middleware)


class CodecServer(InProcessServer):
    """The codec server in this process, for `office codec-server`, the dev stack and tests."""

    def __init__(
        self,
        codec: PayloadCodec,
        ui_origins: list[str],
        port: int = 0,
        host: str = "127.0.0.1",
        hosts: list[str] | None = None,
        token: str | None = None,
        allow_encode: bool = False,
    ) -> None:
        names = [*(hosts or []), *([host] if host not in LOOPBACK_NAMES and host != "0.0.0.0" else [])]
        super().__init__(codec_app(codec, ui_origins, names, token, allow_encode), host, port or None)
