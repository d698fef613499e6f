"""Which worker environment variables a profile may name as its credential, pure (no I/O; the caller reads the
setting and the variable).

A profile's `credential_env` and a repository's `push_credential_env` name a variable the worker resolves and
sends to the profile's endpoint (or to git). Without a rule, a workspace (or a forged activity input) could name
any variable of the worker, e.g. its database URL. The rule:

- never: the office's own and Temporal's settings (`OFFICE_…`, `TEMPORAL_…`), whatever the allow-list says,
  except the credential prefix `OFFICE_CRED_`;
- always: names starting with `OFFICE_CRED_` (the documented place for a key the office may send);
- otherwise: the names `OFFICE_CREDENTIAL_ENV_ALLOW` lists (comma-separated; an entry ending in `*` is a
  prefix), or, when that setting is unset, the names the agent adapters and the examples use (DEFAULT_NAMES).
"""

from dataclasses import dataclass

from routing.config import WorkspaceConfig

ALLOW_SETTING = "OFFICE_CREDENTIAL_ENV_ALLOW"
CREDENTIAL_PREFIX = "OFFICE_CRED_"
RESERVED_PREFIXES = ("OFFICE_", "TEMPORAL_")
DEFAULT_NAMES = (
    "ANTHROPIC_API_KEY",  # Claude Code's adapter
    "OPENAI_API_KEY",  # Codex, OpenAI
    "GEMINI_API_KEY",  # Gemini CLI's adapter
    "GOOGLE_API_KEY",  # Gemini CLI's alternative
    "OPENROUTER_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "GIT_PUSH_TOKEN",  # the repository example (docs/getting-started.md)
)


@dataclass(frozen=True)
class CredentialAllowList:
    names: frozenset[str]
    prefixes: tuple[str, ...]

    @classmethod
    def parse(cls, raw: str | None) -> "CredentialAllowList":
        """The setting's value (None or blank: the default names). Raises ValueError naming a bad entry."""
        if raw is None or not raw.strip():
            return cls(frozenset(DEFAULT_NAMES), (CREDENTIAL_PREFIX,))
        names: set[str] = set()
        prefixes = [CREDENTIAL_PREFIX]
        for entry in (part.strip() for part in raw.split(",")):
            if not entry:
                continue
            stem = entry.removesuffix("*")
            if not stem or not stem.replace("_", "A").isalnum() or not stem.isascii() or stem[0].isdigit():
                raise ValueError(
                    f"{ALLOW_SETTING}: {entry!r} is not a variable name or a prefix ending in * "
                    f"(e.g. ANTHROPIC_API_KEY,TEAM_*)"
                )
            if entry.endswith("*"):
                prefixes.append(stem)
            else:
                names.add(stem)
        return cls(frozenset(names), tuple(prefixes))

    def problem(self, name: str, field: str) -> str | None:
        """Why `field` may not name the variable `name` on this worker, or None. One line naming the fix."""
        if name.startswith(CREDENTIAL_PREFIX):
            return None
        if name.startswith(RESERVED_PREFIXES):
            return (
                f"{field} names {name}, an office or Temporal setting that is never sent as a credential; "
                f"put the key in a variable of its own (e.g. {CREDENTIAL_PREFIX}MY_KEY) and name that"
            )
        if name in self.names or name.startswith(self.prefixes):
            return None
        return (
            f"{field} names {name}, which the worker's {ALLOW_SETTING} does not allow; add {name} to "
            f"{ALLOW_SETTING} (comma-separated names, NAME_* for a prefix) or use a name starting "
            f"{CREDENTIAL_PREFIX}"
        )


def credential_fields(workspace: WorkspaceConfig) -> list[tuple[str, str]]:
    """(field, variable name) for every credential reference a workspace holds: each provider's
    `credential_env`, the repository's `push_credential_env` and each webhook's `secret_env`."""
    found: list[tuple[str, str]] = []
    for provider, profile in workspace.providers.items():
        if profile.credential_env:
            found.append((f"providers.{provider}.credential_env", profile.credential_env))
    if workspace.repository is not None and workspace.repository.push_credential_env:
        found.append(("repository.push_credential_env", workspace.repository.push_credential_env))
    found += [(f"notify.{i}.secret_env", endpoint.secret_env) for i, endpoint in enumerate(workspace.notify)]
    return found
