"""A codec server for the Temporal UI (and `temporal --codec-endpoint`): POST /decode and /encode with
`{"payloads": [...]}` in Temporal's JSON form. Whoever can reach it reads decrypted payloads, so it listens on
loopback by default and allows only the UI's origin."""

from google.protobuf import json_format
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.cors import CORSMiddleware
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from temporalio.api.common.v1 import Payload
from temporalio.converter import PayloadCodec

from office.asgi import InProcessServer
from office.codec import CodecKeyError


def codec_app(codec: PayloadCodec, ui_origins: list[str]) -> Starlette:
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

    async def decode(request: Request) -> JSONResponse:
        return await convert(request, encode=False)

    async def encode(request: Request) -> JSONResponse:
        return await convert(request, encode=True)

    cors = Middleware(
        CORSMiddleware,
        allow_origins=ui_origins,
        allow_methods=["POST", "OPTIONS"],
        allow_headers=["content-type", "x-namespace", "authorization"],
        allow_credentials=True,
    )
    return Starlette(
        routes=[Route("/decode", decode, methods=["POST"]), Route("/encode", encode, methods=["POST"])],
        middleware=[cors],
    )


class CodecServer(InProcessServer):
    """The codec server in this process, for `office codec-server`, the dev stack and tests."""

    def __init__(self, codec: PayloadCodec, ui_origins: list[str], port: int = 0, host: str = "127.0.0.1") -> None:
        super().__init__(codec_app(codec, ui_origins), host, port or None)
