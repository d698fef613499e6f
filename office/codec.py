"""Payload encryption for Temporal: prompts, transcripts and answers are AES-GCM ciphertext in workflow history
(and so in the server's database and the UI), readable only by processes that hold the key.

Keys come by reference, never inline in config: `OFFICE_CODEC_KEYS_FILE` names a file of `key-id=base64key` lines
(the first line encrypts; every line decrypts, so a rotated-out key still reads old histories). Each payload
carries the id of the key that encrypted it. Without the variable, payloads stay plain.

Encryption authenticates: with keys, a plain payload is refused (`PlainPayloadRefused`), since anyone who reaches
the frontend can write one. It is a non-retryable ApplicationError, so a workflow started with a plain input
fails at once naming the setting (the SDK fails the execution instead of retrying its task) and an activity
scheduled with one fails. Reading plain payloads is an explicit allowance: `OFFICE_CODEC_ACCEPT_PLAIN=1` (runs
started before encryption was switched on), the replay of histories recorded in plain, and the codec server (it
shows what it is given; it executes nothing).
"""

import base64
import os
import secrets
from collections.abc import Mapping, Sequence
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from temporalio.api.common.v1 import Payload
from temporalio.converter import PayloadCodec
from temporalio.exceptions import ApplicationError

from contracts.failures import PLAIN_PAYLOAD_REFUSED

ENCODING = b"binary/encrypted"
KEY_ID = "encryption-key-id"
KEYS_FILE_ENV = "OFFICE_CODEC_KEYS_FILE"
ACCEPT_PLAIN_ENV = "OFFICE_CODEC_ACCEPT_PLAIN"
NONCE_BYTES = 12


class CodecKeyError(ValueError):
    """The key configuration cannot be used; the message names the variable or file line to fix."""


class PlainPayloadRefused(ApplicationError):
    """A plain payload reached a process that encrypts: refused, never retried (it will not become encrypted)."""

    def __init__(self) -> None:
        super().__init__(
            f"refused a plain (unencrypted) payload: this office encrypts ({KEYS_FILE_ENV} is set) and accepts "
            f"only payloads sealed with one of its keys; start runs and send signals with a client that has the "
            f"same {KEYS_FILE_ENV} (e.g. `office submit`), or set {ACCEPT_PLAIN_ENV}=1 on the workers while runs "
            f"started before encryption finish",
            type=PLAIN_PAYLOAD_REFUSED,
            non_retryable=True,
        )


class EncryptionCodec(PayloadCodec):
    def __init__(self, keys: Mapping[str, bytes], active: str, accept_plain: bool = False) -> None:
        if active not in keys:
            raise CodecKeyError(f"the active key id {active!r} has no key")
        self._ciphers = {key_id: AESGCM(key) for key_id, key in keys.items()}
        self.active = active
        self.accept_plain = accept_plain  # an explicit allowance: see the module's notes

    def reading_plain(self) -> "EncryptionCodec":
        """The same keys, reading plain payloads as they are (for display and replay, never for a worker)."""
        copy = EncryptionCodec.__new__(EncryptionCodec)
        copy._ciphers, copy.active, copy.accept_plain = self._ciphers, self.active, True
        return copy

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        cipher, key_id = self._ciphers[self.active], self.active.encode()
        out = []
        for p in payloads:
            nonce = secrets.token_bytes(NONCE_BYTES)
            sealed = cipher.encrypt(nonce, p.SerializeToString(), key_id)  # the key id is authenticated too
            out.append(Payload(metadata={"encoding": ENCODING, KEY_ID: key_id}, data=nonce + sealed))
        return out

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return [self._open(p) for p in payloads]

    def _open(self, p: Payload) -> Payload:
        if p.metadata.get("encoding") != ENCODING:
            if self.accept_plain:
                return p  # plain: written before encryption was switched on (an allowance the caller chose)
            raise PlainPayloadRefused()
        key_id = p.metadata.get(KEY_ID, b"").decode()
        cipher = self._ciphers.get(key_id)
        if cipher is None:
            raise CodecKeyError(
                f"payload encrypted with key id {key_id!r}, which is not in {KEYS_FILE_ENV}; add that key's line"
            )
        try:
            plain = cipher.decrypt(p.data[:NONCE_BYTES], p.data[NONCE_BYTES:], key_id.encode())
        except InvalidTag:
            raise CodecKeyError(
                f"payload under key id {key_id!r} does not authenticate (wrong key or tampered)"
            ) from None
        decoded = Payload()
        decoded.ParseFromString(plain)
        return decoded


def parse_keys(text: str, source: str) -> tuple[dict[str, bytes], str]:
    """`id=base64` lines (blank lines and # comments skipped); the first key is the active one."""
    keys: dict[str, bytes] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key_id, sep, encoded = line.partition("=")
        key_id = key_id.strip()
        try:
            key = base64.b64decode(encoded.strip(), validate=True) if sep else b""
        except ValueError:
            key = b""
        if not key_id or len(key) not in (16, 24, 32):
            raise CodecKeyError(f"{source} line {number}: expected `key-id=<base64 of 16, 24 or 32 bytes>`")
        if key_id in keys:
            raise CodecKeyError(f"{source} line {number}: key id {key_id!r} appears twice")
        keys[key_id] = key
    if not keys:
        raise CodecKeyError(f"{source} holds no key; add a line `key-id=<base64 key>` (office codec new-key)")
    return keys, next(iter(keys))


def codec_from_env(env: Mapping[str, str] | None = None, accept_plain: bool | None = None) -> EncryptionCodec | None:
    """The codec OFFICE_CODEC_KEYS_FILE configures (None without it). `accept_plain`: None reads
    OFFICE_CODEC_ACCEPT_PLAIN; the codec server and replay pass True."""
    env = env if env is not None else os.environ
    path = env.get(KEYS_FILE_ENV)
    if not path:
        return None
    if accept_plain is None:
        accept_plain = env.get(ACCEPT_PLAIN_ENV, "").strip().lower() in ("1", "true", "yes")
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise CodecKeyError(f"{KEYS_FILE_ENV}={path}: cannot read the key file ({err.__class__.__name__})") from None
    keys, active = parse_keys(text, f"{KEYS_FILE_ENV} ({path})")
    return EncryptionCodec(keys, active, accept_plain)


def new_key_line(key_id: str) -> str:
    return f"{key_id}={base64.b64encode(secrets.token_bytes(32)).decode()}"


def ensure_key_file(path: Path, key_id: str = "k1") -> Path:
    """A key file for the embedded dev stack, created once (owner-only) and kept with its data."""
    if not path.exists():
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(f"# office payload keys: the first line encrypts, every line decrypts\n{new_key_line(key_id)}\n")
    return path
