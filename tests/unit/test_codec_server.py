"""The codec server decodes only for its own host names, with the bearer token when one is set, and seals nothing
unless /encode was enabled (office/codec_server.py)."""

import asyncio

import httpx
import pytest
from google.protobuf import json_format
from temporalio.api.common.v1 import Payload

from office.codec import EncryptionCodec, new_key_line, parse_keys
from office.codec_server import codec_app

UI = "http://127.0.0.1:8233"


def codec() -> EncryptionCodec:
    keys, active = parse_keys(new_key_line("k1"), "test")
    return EncryptionCodec(keys, active)


def body(*payloads: Payload) -> dict:
    return {"payloads": [json_format.MessageToDict(p) for p in payloads]}


PLAIN = Payload(metadata={"encoding": b"json/plain"}, data=b'"hello"')
SHARED = codec()


async def sealed() -> list[Payload]:
    return await SHARED.encode([PLAIN])


async def post(app, path: str, host: str = "127.0.0.1:8234", **headers: str) -> httpx.Response:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url=f"http://{host}") as client:
        return await client.post(path, json=body(*await sealed()), headers=headers)


@pytest.mark.parametrize("host", ["127.0.0.1:8234", "localhost:8234", "[::1]:8234", "codec.internal:8234"])
async def test_decode_answers_its_own_names(host):
    app = codec_app(SHARED, [UI], hosts=["codec.internal"], token="")
    response = await post(app, "/decode", host=host)
    assert response.status_code == 200
    [decoded] = response.json()["payloads"]
    assert json_format.ParseDict(decoded, Payload()) == PLAIN


@pytest.mark.parametrize("host", ["attacker.example:8234", "rebound.attacker.example", "127.0.0.1.nip.io:8234"])
async def test_a_foreign_host_header_is_refused_before_anything_is_decoded(host):
    response = await post(codec_app(SHARED, [UI], token=""), "/decode", host=host)
    assert response.status_code == 400 and "hello" not in response.text


async def test_encode_exists_only_when_enabled():
    assert (await post(codec_app(SHARED, [UI], token=""), "/encode")).status_code == 404
    enabled = await post(codec_app(SHARED, [UI], token="", allow_encode=True), "/encode")
    assert enabled.status_code == 200 and enabled.json()["payloads"][0]["metadata"]["encoding"]


async def test_with_a_token_only_requests_bearing_it_are_decoded(monkeypatch):
    monkeypatch.setenv("OFFICE_CODEC_TOKEN", "s3cret-token")
    app = codec_app(SHARED, [UI])
    assert (await post(app, "/decode")).status_code == 401
    assert (await post(app, "/decode", authorization="Bearer wrong")).status_code == 401
    assert (await post(app, "/decode", authorization="Bearer s3cret-token")).status_code == 200
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8234") as client:
        preflight = await client.options(
            "/decode", headers={"origin": UI, "access-control-request-method": "POST"}
        )  # the browser's preflight carries no token
    assert preflight.status_code == 200 and preflight.headers["access-control-allow-origin"] == UI


def test_plain_payloads_are_shown_as_they_are():
    app = codec_app(SHARED, [UI], token="")
    transport = httpx.ASGITransport(app=app)

    async def go() -> httpx.Response:
        async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
            return await client.post("/decode", json=body(PLAIN))

    assert asyncio.run(go()).json() == body(PLAIN)
