"""The manual cannot fall behind the code: the committed reference pages are what their generators write from the
code now, and each page holds every configuration key, CLI command, option and exit status, error code and agent
adapter, found here independently of the generators (the models' JSON schema, the CLI's command list, the enums)."""

import re
from pathlib import Path
from typing import Any

import pytest
import typer
from pydantic import BaseModel, Field

from activities.executors.agents import ADAPTERS
from docs.gen import config_reference, error_reference, pages
from office.cli import COMMANDS, common
from office.cli import app as office_app
from routing.codes import ErrorCode
from routing.config import AgentProfile, WorkspaceConfig

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def headings(text: str, level: str) -> set[str]:
    return set(re.findall(rf"^{level} `([^`]+)`$", text, re.MULTILINE))


def test_the_committed_reference_pages_are_what_the_generators_write_now():
    assert pages.stale() == [], "stale reference pages: run `python -m docs.gen` and commit docs/reference/"


# ---------------------------------------------------------------------------------------------- configuration


def schema_keys(schema: dict[str, Any], defs: dict[str, Any], prefix: str = "") -> set[str]:
    """Every key a file may hold, from the model's JSON schema (not from the generator's own walk)."""

    def resolve(node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            node = defs[node["$ref"].split("/")[-1]]
        return node

    def nested(node: dict[str, Any], path: str) -> set[str]:
        node = resolve(node)
        found: set[str] = set()
        for option in node.get("anyOf", []):
            found |= nested(option, path)
        if "properties" in node:
            found |= schema_keys(node, defs, f"{path}.")
        if node.get("type") == "array" and isinstance(node.get("items"), dict):
            item = resolve(node["items"])
            if "properties" in item:
                found |= schema_keys(item, defs, f"{path}[].")
        extra = node.get("additionalProperties")
        if isinstance(extra, dict) and "properties" in resolve(extra):
            placeholder = "<tier>" if path.endswith("tiers") else "<name>"
            found |= schema_keys(resolve(extra), defs, f"{path}.{placeholder}.")
        return found

    keys: set[str] = set()
    for name, node in schema.get("properties", {}).items():
        keys.add(f"{prefix}{name}")
        keys |= nested(node, f"{prefix}{name}")
    return keys


@pytest.mark.parametrize("model", [WorkspaceConfig, AgentProfile])
def test_every_configuration_key_has_a_section_with_type_default_and_example(model):
    schema = model.model_json_schema()
    expected = schema_keys(schema, schema.get("$defs", {}))
    text = page("reference/configuration.md")
    missing = expected - headings(text, "###")
    assert not missing, f"keys missing from docs/reference/configuration.md: {sorted(missing)}"
    assert len(expected) >= 5
    for key in expected:
        section = text.split(f"### `{key}`\n", 1)[1].split("\n### ", 1)[0]
        assert "- **Type:**" in section and "- **Default:**" in section and "```yaml" in section, key


def test_a_field_without_a_description_stops_the_generator_naming_it():
    class Grown(WorkspaceConfig):
        review_policy: str = "strict"

    with pytest.raises(config_reference.ReferenceIncomplete, match="review_policy"):
        config_reference._documented(Grown, config_reference.WORKSPACE_KEYS)


def test_a_field_with_its_own_docstring_needs_no_description_in_the_generator():
    class Described(BaseModel):
        retries: int = Field(default=0, description="How often.")

    keys = config_reference._documented(Described, {"retries": config_reference.Doc("", 3)})
    assert [k.path for k in keys] == ["retries"]


def test_an_example_that_does_not_validate_stops_the_generator():
    wrong = config_reference.Key(
        "max_attempts", WorkspaceConfig.model_fields["max_attempts"], config_reference.Doc("x", 500)
    )
    with pytest.raises(config_reference.ReferenceIncomplete, match="max_attempts"):
        config_reference.check_example(WorkspaceConfig, config_reference.BASE_WORKSPACE, wrong)


def test_every_environment_variable_the_product_reads_is_in_the_reference():
    sources = [
        p
        for d in ("routing", "contracts", "workflows", "activities", "store", "office")
        for p in (ROOT / d).rglob("*.py")
    ]
    named = {
        m for p in [*sources, ROOT / "worker.py"] for m in re.findall(r"[\"'](OFFICE_[A-Z0-9_]+)[\"']", p.read_text())
    }
    documented = set(config_reference.ENVIRONMENT)
    missing = {n for n in named if n not in documented and not n.startswith("OFFICE_CRED_")}
    assert not missing, f"environment variables missing from the configuration reference: {sorted(missing)}"
    text = page("reference/configuration.md")
    assert all(f"| `{name}` |" in text for name in documented)


# ------------------------------------------------------------------------------------------------------- CLI


def cli_sections() -> dict[str, str]:
    text = page("reference/cli.md")
    parts = re.split(r"^## `(office[^`]*)`$", text, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def leaf_commands(command: Any, path: str) -> list[tuple[str, Any]]:
    subcommands = getattr(command, "commands", None)
    if not subcommands:
        return [(path, command)]
    return [leaf for name, sub in subcommands.items() for leaf in leaf_commands(sub, f"{path} {name}")]


def test_every_cli_command_in_the_command_list_has_a_section():
    sections = cli_sections()
    for name, *_ in COMMANDS:
        assert any(path == f"office {name}" or path.startswith(f"office {name} ") for path in sections), name


def test_every_cli_option_and_argument_is_in_its_commands_section():
    sections = cli_sections()
    for path, command in leaf_commands(typer.main.get_command(office_app), "office"):
        assert path in sections, f"{path} missing from docs/reference/cli.md"
        for param in command.params:
            spelled = [param.name.upper()] if param.param_type_name == "argument" else param.opts + param.secondary_opts
            for name in spelled:
                assert f"`{name}`" in sections[path], f"{path} {name} missing from docs/reference/cli.md"


def test_every_exit_status_is_documented():
    text = page("reference/cli.md").split("## Exit statuses", 1)[1].split("\n## ", 1)[0]
    statuses = {0} | {v for k, v in vars(common).items() if k.startswith("EXIT_") and isinstance(v, int)}
    literal = set()
    for source in (ROOT / "office" / "cli").glob("*.py"):
        code = source.read_text()
        literal |= {int(n) for n in re.findall(r"typer\.Exit\((?:code=)?(\d+)\)", code)}
        literal |= {int(n) for n in re.findall(r"\bfail\([^()]*(?:\([^()]*\)[^()]*)*,\s*(?:code=)?(\d+)\)", code)}
    for status in statuses | literal:
        assert f"| `{status}` |" in text, f"exit status {status} missing from docs/reference/cli.md"


# ------------------------------------------------------------------------------------------------ error codes


def test_every_error_code_has_its_decisions_in_each_context_and_a_message():
    text = page("reference/errors.md")
    documented = headings(text, "###")
    assert {code.value for code in ErrorCode} <= documented
    for code in ErrorCode:
        section = text.split(f"### `{code.value}`\n", 1)[1].split("\n### ", 1)[0]
        assert "| situation | office context | interactive context |" in section, code
        assert "first failure, another provider eligible" in section, code
        assert "\n> " in section, f"{code.value}: no message for the user"


def test_a_code_without_a_meaning_stops_the_generator_naming_it(monkeypatch):
    monkeypatch.delitem(error_reference.MEANING, ErrorCode.quota_limited)
    with pytest.raises(ValueError, match="quota_limited"):
        error_reference.render()


def test_the_page_shows_what_the_decider_decides():
    """Spot checks of behaviour the design fixes, read from the page: an unknown error never switches provider, a
    revoked key falls back in an office run and never in an interactive one, a pinned run waits for the user."""
    text = page("reference/errors.md")

    def row(code: str, situation: str) -> str:
        section = text.split(f"### `{code}`\n", 1)[1].split("\n### ", 1)[0]
        return next(line for line in section.splitlines() if line.startswith(f"| {situation} |"))

    assert "fallback" not in row("unknown", "first failure, another provider eligible")
    office, interactive = row("auth_required", "first failure, another provider eligible").split(" | ")[1:3]
    assert office.startswith("fallback") and interactive.startswith("fail")
    assert "awaiting_user_decision" in row("model_unavailable", "the run is pinned and its pinned route failed")


# ----------------------------------------------------------------------------------------------------- agents


def test_every_agent_adapter_has_a_section():
    assert set(ADAPTERS) <= headings(page("reference/adapters.md"), "##")


# ----------------------------------------------------------------------------------------------------- README


def test_the_readme_stays_short_and_measures_nothing():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    figures = re.findall(r"\b\d+(?:\.\d+)?\s?(?:ms|s|min|MB|GB|MiB|runs/s|%|×)(?![\w/])", text)
    assert figures == [], f"measurements belong on docs/benchmarks.md, not in the README: {figures}"
    assert "docs/benchmarks.md" in text


def test_every_relative_link_in_the_readme_and_the_manual_resolves():
    for document in [ROOT / "README.md", *DOCS.glob("*.md"), *DOCS.glob("reference/*.md")]:
        for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", document.read_text(encoding="utf-8")):
            if not re.match(r"[a-z]+:", target):
                assert (document.parent / target).exists(), f"{document.relative_to(ROOT)} links to {target}"
