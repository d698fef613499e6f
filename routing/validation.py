"""Checks on what a user writes into configuration, pure (no I/O; safe in the workflow sandbox).

Workspace and profile settings are stored in plain text and travel in workflow histories, which the Temporal UI
shows and keeps forever, so a literal credential must never get in: it is recognised by its shape (known key
prefixes, credentials inside URLs, long high-entropy tokens) wherever it is written, and refused with a pointer
to `credential_env`. Messages never repeat the secret itself.
"""

import math
import re
from collections import Counter
from collections.abc import Iterator
from urllib.parse import parse_qsl, urlsplit

# Known credential shapes: (pattern, what it looks like). The part after the prefix must be long enough that a
# model name or a path segment ("task-runner", "sk-small") is never mistaken for a key.
_NOT_AFTER = r"(?<![A-Za-z0-9])"
KEY_SHAPES: list[tuple[re.Pattern[str], str]] = [
    (re.compile(_NOT_AFTER + r"sk-ant-[A-Za-z0-9_-]{16,}"), "an Anthropic API key (sk-ant-…)"),
    (re.compile(_NOT_AFTER + r"sk-[A-Za-z0-9_-]{16,}"), "an OpenAI-style API key (sk-…)"),
    (re.compile(_NOT_AFTER + r"AIza[0-9A-Za-z_-]{30,}"), "a Google API key (AIza…)"),
    (re.compile(_NOT_AFTER + r"(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}"), "a GitHub token (ghp_…)"),
    (re.compile(_NOT_AFTER + r"github_pat_[A-Za-z0-9_]{20,}"), "a GitHub token (github_pat_…)"),
    (re.compile(_NOT_AFTER + r"xox[abposr]-[A-Za-z0-9-]{10,}"), "a Slack token (xox…)"),
    (re.compile(_NOT_AFTER + r"(?:AKIA|ASIA)[0-9A-Z]{16}(?![0-9A-Z])"), "an AWS access key id (AKIA…)"),
    (re.compile(_NOT_AFTER + r"glpat-[A-Za-z0-9_-]{20,}"), "a GitLab token (glpat-…)"),
    (re.compile(_NOT_AFTER + r"hf_[A-Za-z0-9]{30,}"), "a Hugging Face token (hf_…)"),
    (re.compile(_NOT_AFTER + r"whsec_[A-Za-z0-9+/=]{16,}"), "a webhook signing secret (whsec_…)"),
    (re.compile(r"eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}"), "a JSON web token (eyJ…)"),
    (re.compile(r"\bBearer\s+[^\s\"']{8,}", re.IGNORECASE), "a bearer token"),
]
# Query parameters that carry credentials (Gemini's `?key=`, signed URLs, `?access_token=`).
SECRET_QUERY = re.compile(
    r"^(key|api[-_]?key|apikey|access[-_]?token|token|auth|secret|client[-_]?secret|password|passwd|pwd"
    r"|sig|signature|x-amz-signature|x-amz-credential|x-goog-signature|code)$",
    re.IGNORECASE,
)
# A long run of characters a generated secret is made of; `/`, `.` and `:` split it, so paths, model ids
# ("claude-3-5-Sonnet-20241022") and host names are judged piece by piece.
_TOKEN = re.compile(r"[A-Za-z0-9+=_-]{32,}")
HIGH_ENTROPY_BITS = 4.0  # per character; random base62/base64 is ~4.5-5 over 32+ chars, words and hex stay below


def entropy(text: str) -> float:
    """Shannon entropy of `text` in bits per character."""
    if not text:
        return 0.0
    n = len(text)
    return -sum(c / n * math.log2(c / n) for c in Counter(text).values())


def _random_looking(token: str) -> bool:
    """Mixed case and digits, high entropy, and not a chain of short words ("Coder-32B-Instruct-GPTQ-Int4")."""
    classes = sum(len(re.findall(p, token)) >= 2 for p in (r"[a-z]", r"[A-Z]", r"[0-9]"))
    longest_piece = max(len(piece) for piece in re.split(r"[-_]", token))
    return classes == 3 and longest_piece >= 12 and entropy(token) >= HIGH_ENTROPY_BITS


def secret_shape(value: str) -> str | None:
    """What `value` contains that looks like a literal credential (a phrase such as "an OpenAI-style API key
    (sk-…)"), or None. Never returns the secret itself."""
    for pattern, what in KEY_SHAPES:
        if pattern.search(value):
            return what
    if "://" in value:
        found = _url_secret(value)
        if found:
            return found
    for token in _TOKEN.findall(value):
        if _random_looking(token):
            return "a long random-looking token"
    return None


def _url_secret(value: str) -> str | None:
    for candidate in re.findall(r"[A-Za-z][A-Za-z0-9+.-]*://\S+", value):
        try:
            parts = urlsplit(candidate)
        except ValueError:
            continue
        if parts.password:
            return "a password in the URL (user:password@host)"
        if parts.username and len(parts.username) >= 20:  # https://<token>@github.com/…
            return "a token in the URL's user part (token@host)"
        for name, val in parse_qsl(parts.query, keep_blank_values=False) + parse_qsl(parts.fragment):
            if SECRET_QUERY.match(name) and val:
                return f"a credential in the query string ({name}=…)"
    return None


def walk_strings(data: object, path: str = "") -> Iterator[tuple[str, str]]:
    """Every string in nested dicts/lists with its dotted path (`providers.alpha.env.X`, `command.2`)."""
    if isinstance(data, str):
        yield path or "(value)", data
    elif isinstance(data, dict):
        for key, value in data.items():
            yield from walk_strings(value, f"{path}.{key}" if path else str(key))
    elif isinstance(data, (list, tuple)):
        for i, value in enumerate(data):
            yield from walk_strings(value, f"{path}.{i}" if path else str(i))


def secret_advice(path: str, what: str) -> str:
    # A webhook's signing secret has its own reference (notify[].secret_env); every other key is credential_env.
    field, example = (
        ("secret_env", "OFFICE_CRED_WEBHOOK_SECRET")
        if path.startswith("notify")
        else (
            "credential_env",
            "OPENAI_API_KEY",
        )
    )
    return (
        f"{path} contains what looks like {what}: settings are stored in plain text and shown in workflow "
        f"histories; put the key in an environment variable on the worker and name that variable in "
        f"{field} (e.g. {field}: {example})"
    )


def refuse_literal_secrets(data: object) -> None:
    """Raises ValueError naming the first setting that holds a literal credential (the value is not repeated)."""
    for path, value in walk_strings(data):
        what = secret_shape(value)
        if what:
            raise ValueError(secret_advice(path, what))


def http_url_problem(value: str, example: str = "https://api.openai.com/v1") -> str | None:
    """Why `value` is not an http(s) URL with a host, or None. Does not repeat the value."""
    if value != value.strip() or any(c.isspace() for c in value):
        return f"must be an http(s) URL without spaces (e.g. {example})"
    try:
        parts = urlsplit(value)
        port = parts.port  # raises on a port that is not a number or out of range
    except ValueError:
        return f"is not a valid URL (e.g. {example})"
    if parts.scheme not in ("http", "https"):
        shown = f"scheme {parts.scheme!r}" if parts.scheme else "no scheme"
        return f"must be an http(s) URL such as {example} (it has {shown})"
    if not parts.hostname:
        return f"must name a host, e.g. {example} or http://127.0.0.1:8080/v1"
    del port
    return None


def text_problem(value: str) -> str | None:
    """Why user text (a prompt, a follow-up) cannot be sent, or None: NUL bytes, or bytes that are not UTF-8
    (which Python's command line keeps as lone surrogates)."""
    if "\x00" in value:
        return "contains a NUL byte; remove it"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as err:
        return f"is not valid UTF-8 (at character {err.start}); save or pass the text as UTF-8"
    return None
