"""A provider's identity: what its health, breaker, retry budget and pacer describe.

A workspace's provider NAME is a label: two workspaces may both call their provider `claude` while one reaches
api.anthropic.com with the team key and the other a proxy with another key. What fails (a key refused, an
endpoint overloaded) belongs to the endpoint and the credential, so the shared state is keyed by a short hash
of the executor kind, the normalised endpoint (base URL, or the agent command for ACP) and the credential
REFERENCE (the environment variable name; the key itself is never seen here). Workspaces that reach the same
endpoint with the same credential reference share one protection; anything else is a different provider.

Stable: the key is a pure function of those fields, persisted in the store and recomputed by every worker, so
changing what goes into it needs a migration that re-keys the rows.
"""

import hashlib
import json
from urllib.parse import urlsplit, urlunsplit

from routing.config import ExecutionProfile

KEY_VERSION = "v1"  # part of the hashed material: a change of recipe can never collide with old keys
DEFAULT_PORTS = {"http": 80, "https": 443}


def normalise_base_url(url: str | None) -> str:
    """Scheme and host lowercased, a default port dropped, trailing slashes and an empty query or fragment
    removed: `HTTPS://API.openai.com:443/v1/` and `https://api.openai.com/v1` are one endpoint. The path keeps
    its case (servers may route on it)."""
    if not url:
        return ""
    parts = urlsplit(url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:  # IPv6 literal
        host = f"[{host}]"
    port = parts.port
    netloc = host if port is None or DEFAULT_PORTS.get(scheme) == port else f"{host}:{port}"
    if parts.username:  # user info in a URL is a credential: it identifies the caller, keep it (hashed below)
        netloc = f"{parts.username}{':' + parts.password if parts.password else ''}@{netloc}"
    path = parts.path.rstrip("/")
    return urlunsplit((scheme, netloc, path, parts.query, ""))


def identity_key(kind: str, base_url: str | None, command: list[str], credential_env: str | None) -> str:
    """The key from the identifying fields (the migration computes it from stored JSON through this)."""
    material = json.dumps(
        [KEY_VERSION, kind, normalise_base_url(base_url), list(command), credential_env or ""], separators=(",", ":")
    )
    return f"{kind}-{hashlib.sha256(material.encode()).hexdigest()[:16]}"


def provider_key(profile: ExecutionProfile) -> str:
    """The identity of the provider a profile reaches, e.g. `openai-1f0c9a2b7d3e4a55`."""
    command = profile.command if profile.kind.value == "acp" else []
    return identity_key(profile.kind.value, profile.base_url, command, profile.credential_env)


def legacy_key(name: str) -> str:
    """The key of health recorded under a bare name no stored workspace resolves (rows from before provider
    identities whose provider is gone, tests that name a provider without a workspace)."""
    return identity_key("legacy", None, [], name)
