"""What an agent's sandbox lets through: the settings (workspace and profile) and the endpoints they allow.

Pure: the launcher (activities/executors/sandbox.py) turns these into a bubblewrap command line and relays.
An agent sees its working copy, its own installation, a per-session home and the network path to its provider;
the workspace may widen that (`sandbox.network`, `sandbox.read_only`), a profile may narrow the network, and
`sandbox: none` switches the sandbox off for a whole workspace (a warning everywhere the run shows).
"""

import ipaddress
import re
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

HOST_PATTERN = re.compile(r"^(\*\.)?[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?(:\d{1,5})?$")
LOOPBACK_NAMES = {"localhost", "localhost.localdomain"}
NO_SANDBOX_WARNING = (
    "sandbox is off (sandbox: none): the agent runs with the worker's own access to its files, processes and "
    "network; remove `sandbox: none` from the workspace to confine it"
)


def _host_entries(value: list[str]) -> list[str]:
    for entry in value:
        if not HOST_PATTERN.match(entry):
            raise ValueError(f"{entry!r} is not a host or host:port (e.g. registry.npmjs.org or pypi.org:443)")
    return value


def _absolute_paths(value: list[str]) -> list[str]:
    for path in value:
        if not path.startswith("/") or "\0" in path or "/../" in f"{path}/":
            raise ValueError(f"{path!r} is not an absolute path without '..' (e.g. /opt/toolchain)")
    return value


class SandboxSettings(BaseModel):
    """The workspace's sandbox. `mode: none` (or `sandbox: none`) turns it off for every run of the workspace."""

    model_config = ConfigDict(extra="forbid")

    mode: Literal["bubblewrap", "none"] = "bubblewrap"
    # Hosts (host or host:port, `*.` for subdomains) the agent may reach besides its provider, through the proxy.
    network: list[str] = Field(default_factory=list)
    # Paths the agent may read besides its working copy and its installation (a toolchain, the command's own files).
    read_only: list[str] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _shorthand(cls, data: object) -> object:
        if isinstance(data, bool):  # YAML reads `off`, `no` and `false` as false
            raise ValueError("write `sandbox: none` to turn the sandbox off (YAML reads off/no/false as a boolean)")
        return {"mode": data} if isinstance(data, str) else data

    @field_validator("network")
    @classmethod
    def _hosts(cls, value: list[str]) -> list[str]:
        return _host_entries(value)

    @field_validator("read_only")
    @classmethod
    def _paths(cls, value: list[str]) -> list[str]:
        return _absolute_paths(value)

    @property
    def off(self) -> bool:
        return self.mode == "none"


class ProfileSandbox(BaseModel):
    """A profile narrows its agent's network (only these of what the workspace allows; [] for the provider only)
    and may name read-only paths its command needs."""

    model_config = ConfigDict(extra="forbid")

    network: list[str] | None = None
    read_only: list[str] = Field(default_factory=list)
    # Paths the agent may write besides its working copy (e.g. a log directory): each one is a hole in the sandbox.
    read_write: list[str] = Field(default_factory=list)

    @field_validator("network")
    @classmethod
    def _hosts(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else _host_entries(value)

    @field_validator("read_only", "read_write")
    @classmethod
    def _paths(cls, value: list[str]) -> list[str]:
        return _absolute_paths(value)


class Endpoint(BaseModel):
    """One place the agent may connect to: `host` and `port` (None: any port of a proxied host)."""

    model_config = ConfigDict(frozen=True)

    host: str
    port: int | None

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)

    def admits(self, host: str, port: int) -> bool:
        host = host.lower().rstrip(".")
        wanted = self.host.lower()
        same = host == wanted or (wanted.startswith("*.") and host.endswith(wanted[1:]))
        return same and (self.port is None or self.port == port)


def is_loopback(host: str) -> bool:
    host = host.strip("[]").lower()
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _endpoint(entry: str) -> Endpoint:
    host, _, port = entry.rpartition(":") if re.search(r":\d+$", entry) else (entry, "", "")
    return Endpoint(host=host.lower(), port=int(port) if port else None)


def provider_endpoint(base_url: str) -> Endpoint:
    parts = urlsplit(base_url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return Endpoint(host=(parts.hostname or "").lower(), port=port)


def provider_endpoints(base_url: str | None, default_hosts: tuple[str, ...]) -> list[Endpoint]:
    """The provider's own: the profile's base URL, else the agent's vendor hosts on 443."""
    return [provider_endpoint(base_url)] if base_url else [Endpoint(host=h, port=443) for h in default_hosts]


def allowed_endpoints(
    base_url: str | None,
    default_hosts: tuple[str, ...],
    workspace: SandboxSettings,
    profile: ProfileSandbox | None,
) -> list[Endpoint]:
    """The provider (the profile's base URL, else the agent's vendor hosts on 443), then the workspace's extra
    hosts, narrowed to the profile's list when it has one. Order is kept, duplicates dropped."""
    provider = provider_endpoints(base_url, default_hosts)
    extra = [_endpoint(e) for e in workspace.network]
    if profile is not None and profile.network is not None:
        narrowed = {_endpoint(e) for e in profile.network}
        extra = [e for e in extra if e in narrowed]
    seen: list[Endpoint] = []
    for endpoint in [*provider, *extra]:
        if endpoint not in seen:
            seen.append(endpoint)
    return seen
