"""Payload encryption: what is written is ciphertext, what is read back is the payload, old keys still read."""

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st
from temporalio.api.common.v1 import Payload

from office.codec import (
    ACCEPT_PLAIN_ENV,
    KEYS_FILE_ENV,
    CodecKeyError,
    EncryptionCodec,
    PlainPayloadRefused,
    codec_from_env,
    ensure_key_file,
    new_key_line,
    parse_keys,
)


def codec(*lines: str) -> EncryptionCodec:
    keys, active = parse_keys("\n".join(lines), "test")
    return EncryptionCodec(keys, active)


def payload(data: bytes) -> Payload:
    return Payload(metadata={"encoding": b"json/plain"}, data=data)


@given(st.binary(max_size=2048))
def test_what_is_encoded_is_ciphertext_and_decodes_back(data):
    c = codec(new_key_line("k1"))
    [sealed] = asyncio.run(c.encode([payload(data)]))
    assert sealed.metadata["encoding"] == b"binary/encrypted" and sealed.metadata["encryption-key-id"] == b"k1"
    if len(data) >= 8:
        assert data not in sealed.data
    [opened] = asyncio.run(c.decode([sealed]))
    assert opened == payload(data)


def test_rotation_new_key_encrypts_and_the_old_key_still_decrypts():
    old_line, new_line = new_key_line("k1"), new_key_line("k2")
    [old] = asyncio.run(codec(old_line).encode([payload(b'"canary"')]))
    rotated = codec(new_line, old_line)
    [new] = asyncio.run(rotated.encode([payload(b'"fresh"')]))
    assert new.metadata["encryption-key-id"] == b"k2"
    assert [p.data for p in asyncio.run(rotated.decode([old, new]))] == [b'"canary"', b'"fresh"']


def test_a_plain_payload_is_refused_naming_the_setting_unless_explicitly_allowed():
    plain = payload(b'{"prompt": "x"}')
    with pytest.raises(PlainPayloadRefused, match=f"{KEYS_FILE_ENV} is set") as err:
        asyncio.run(codec(new_key_line("k1")).decode([plain]))
    assert err.value.non_retryable  # a workflow started with it fails at once instead of retrying its task
    assert asyncio.run(codec(new_key_line("k1")).reading_plain().decode([plain])) == [plain]


def test_runs_started_before_encryption_read_with_the_allowance_set(tmp_path):
    path = ensure_key_file(tmp_path / "keys")
    strict = codec_from_env({KEYS_FILE_ENV: str(path)})
    allowing = codec_from_env({KEYS_FILE_ENV: str(path), ACCEPT_PLAIN_ENV: "1"})
    assert strict is not None and not strict.accept_plain
    assert allowing is not None and allowing.accept_plain


def test_a_missing_key_or_a_tampered_payload_is_a_clear_error_not_garbage():
    [sealed] = asyncio.run(codec(new_key_line("k1")).encode([payload(b"x")]))
    with pytest.raises(CodecKeyError, match=r"key id 'k1'.*add that key"):
        asyncio.run(codec(new_key_line("k2")).decode([sealed]))
    tampered = Payload(metadata=dict(sealed.metadata), data=sealed.data[:-1] + bytes([sealed.data[-1] ^ 1]))
    with pytest.raises(CodecKeyError, match="does not authenticate"):
        asyncio.run(codec(new_key_line("k1")).decode([tampered]))


@pytest.mark.parametrize(
    ("text", "fix"),
    [
        ("", "holds no key"),
        ("k1", "line 1: expected"),
        ("k1=notbase64!!", "line 1: expected"),
        ("k1=" + "QUJD", "line 1: expected"),  # 3 bytes: not an AES key
        ("{a}\n{a}", "appears twice"),
    ],
)
def test_bad_key_files_name_the_line_and_the_fix(text, fix):
    with pytest.raises(CodecKeyError, match=fix):
        parse_keys(text.format(a=new_key_line("k1")), "keys.txt")


def test_keys_come_from_the_file_the_environment_names(tmp_path):
    assert codec_from_env({}) is None
    path = ensure_key_file(tmp_path / "keys")
    assert path.stat().st_mode & 0o077 == 0  # owner only
    found = codec_from_env({KEYS_FILE_ENV: str(path)})
    assert found is not None and found.active == "k1"
    assert ensure_key_file(path).read_text() == path.read_text()  # created once, never replaced
    with pytest.raises(CodecKeyError, match=KEYS_FILE_ENV):
        codec_from_env({KEYS_FILE_ENV: str(tmp_path / "missing")})
