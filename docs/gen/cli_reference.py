"""The CLI reference, generated from the Typer app (`office.cli.app`): every command, argument and option with
its type, default and help, and every exit status `office` ends with (`office.cli.common.EXIT_*`)."""

import inspect
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import typer

from office.cli import app as office_app
from office.cli import common

# The meaning of each exit status constant in office.cli.common; 0 is success.
EXIT_MEANINGS: dict[str, str] = {
    "EXIT_RUN_FAILED": "The run failed or was cancelled (`submit --wait`, `watch`). The run's message says why.",
    "EXIT_USAGE": "Bad input, nothing was started or saved: a missing or invalid argument; a workspace or profile "
    "file that is unreadable, not UTF-8, holds a NUL byte, a syntax error, a duplicate or unknown key, a YAML "
    "anchor or alias, or an invalid value; an unknown workspace, agent, tier or run; a run id that is malformed or "
    "already taken; a credential variable the workers do not admit; or a malformed `OFFICE_DATABASE_URL`, "
    "`TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE` or `OFFICE_CODEC_KEYS_FILE`.",
    "EXIT_UNAVAILABLE": "Temporal or the database cannot be reached (or the database has no office tables yet: "
    "`office db upgrade`).",
    "EXIT_NOT_INSTALLED": "`office bench`: the benchmarks are not installed (they ship only with a source checkout, "
    "not in the wheel); run `python -m office.cli bench …` from the checkout (`make bench`).",
    "EXIT_PARKED": "`submit --wait`: the run parked. It prints status `parked` and the reason; the run keeps "
    "waiting on the server: `office runs resume RUN` or `office runs decide RUN` continues it (a run waiting for "
    "capacity continues by itself).",
}


# Help for options the app declares without any, by "command path option".
OPTION_HELP: dict[str, str] = {
    "office submit --workspace": "The workspace the run belongs to.",
    "office submit --agent": "The agent profile to run.",
    "office profile list --workspace": "Only the profiles runs of this workspace can use, models judged there.",
    "office simulator --port": "The port to listen on.",
    "office codec-server --port": "The port to listen on (127.0.0.1).",
    "office runs list --limit": "At most this many runs, newest first.",
    "office unpin --provider": "Remove the provider pin.",
    "office unpin --model": "Remove the model pin.",
    "office unpin --actor": "Who unpins (for the record).",
    "office explain-error --exception-type": "The exception's type name, e.g. httpx.ReadTimeout.",
    "office profile set --fallback-model": "At session start only: the model to use when the start model is not "
    "advertised.",
    "office profile set --auto-fallback": "At session start only: let the executor's default run (with a warning) "
    "when neither model is advertised.",
}


# Help for arguments the app declares without any, by NAME.
ARGUMENT_HELP: dict[str, str] = {
    "RUN_ID": "The run's id (its workflow id).",
    "AGENT": "The agent profile's name.",
    "PROVIDER": "A provider's name as the workspace spells it (`health clear`: also a provider key).",
    "NAME": "The workspace's or profile's name.",
}


@dataclass(frozen=True)
class Command:
    path: str  # "office runs show"
    command: Any  # the Click command Typer built


def exit_codes() -> dict[int, str]:
    """Every exit status `office` uses: 0 and each EXIT_* constant, with its meaning."""
    codes = {0: "Success."}
    for name, value in vars(common).items():
        if name.startswith("EXIT_") and isinstance(value, int):
            if name not in EXIT_MEANINGS:
                raise ValueError(f"office.cli.common.{name} has no meaning in docs/gen/cli_reference.py")
            codes[value] = EXIT_MEANINGS[name]
    return dict(sorted(codes.items()))


def commands(group: Any = None, path: str = "office") -> Iterator[Command]:
    """Every leaf command of the app, depth first, in the order `office --help` lists them."""
    group = group if group is not None else typer.main.get_command(office_app)
    subcommands = getattr(group, "commands", None)
    if not subcommands:
        yield Command(path, group)
        return
    for name, sub in subcommands.items():
        if not getattr(sub, "hidden", False):
            yield from commands(sub, f"{path} {name}")


def _type_name(param: Any) -> str:
    if getattr(param, "is_flag", False):
        return "flag"
    try:
        name = str(param.bare_type())
    except (AttributeError, AssertionError, TypeError):
        name = ""
    if name.startswith("list[") and name.endswith("]"):
        name = name[5:-1]
    names = {"str": "text", "int": "integer", "float": "number", "Path": "path", "bool": "flag"}
    text = names.get(name, name or "text")
    return f"{text}, repeatable" if getattr(param, "multiple", False) else text


def _default(param: Any) -> str:
    if param.required:
        return "required"
    default = param.default
    if callable(default) or default is None or default == [] or default == ():
        return ""
    if getattr(param, "is_flag", False):
        return "on" if default else ""
    return f"`{default}`"


def _cell(text: str | None) -> str:
    return " ".join((text or "").split()).replace("|", "\\|")


def _usage(command: Command) -> str:
    words = [command.path]
    for param in command.command.params:
        if param.param_type_name == "argument":
            name = param.name.upper()
            words.append(name if param.required else f"[{name}]")
    if any(p.param_type_name == "option" for p in command.command.params):
        words.append("[OPTIONS]")
    return " ".join(words)


def option_names(param: Any) -> list[str]:
    """How a parameter is spelt on the command line: its options (and their `--no-…` forms), or its NAME."""
    if param.param_type_name == "argument":
        return [param.name.upper()]
    return [*param.opts, *param.secondary_opts]


def _section(command: Command) -> list[str]:
    help_text = inspect.cleandoc(command.command.help or "")
    lines = [f"## `{command.path}`", "", help_text, "", "```", _usage(command), "```", ""]
    params = [p for p in command.command.params if p.name != "help"]
    if params:
        lines += ["| argument or option | type | default | meaning |", "|---|---|---|---|"]
        for param in params:
            names = " / ".join(f"`{n}`" for n in option_names(param))
            text = param.help or OPTION_HELP.get(f"{command.path} {option_names(param)[0]}", "")
            if not text and param.param_type_name == "argument":
                text = ARGUMENT_HELP.get(option_names(param)[0], "")
            if not text and param.name == "as_json":
                text = "Print one JSON object instead of a table."
            lines.append(f"| {names} | {_type_name(param)} | {_default(param)} | {_cell(text)} |")
        lines.append("")
    return lines


INTRO = """# CLI reference

<!-- Generated by docs/gen/cli_reference.py from the Typer app (office/cli/) at build time. -->

`office` is installed with the package (`.venv/bin/office` after `make run` or `make install`). Every command
reads the standard Temporal environment configuration (`TEMPORAL_ADDRESS`, `TEMPORAL_NAMESPACE`,
`TEMPORAL_API_KEY`, TLS and profile files) and `OFFICE_DATABASE_URL`; `office dev` prints the `export` lines
another shell needs. Every command takes `--help`. `--json` output of `submit --wait` and `runs show` is one
object with `run_id`, `status` (`completed | failed | parked | running | cancelled`), `provider`,
`requested_model`, `effective_model`, `attempts` (`seq`, `provider`, `model`, `outcome`, `error_code`,
`decision`, `rule`, `excerpt`, …), `warnings`, `message`, `park_reason`, `output`, `fallback_count`, and for
runs with a repository `result` (`branch`, `base_commit`, `head_commit`, `files_changed`, `insertions`,
`deletions`) and `permissions` (`asked` / `allowed` / `refused` by tool kind).

## Exit statuses

`office` ends every failure with one line on stderr naming the setting and how to fix it, never a traceback.

| status | meaning |
|---|---|
"""


def render() -> str:
    lines = [INTRO.rstrip("\n")]
    lines += [f"| `{code}` | {_cell(text)} |" for code, text in exit_codes().items()]
    lines += [
        "",
        "`tests/e2e/test_bad_input.py` checks each bad-input case for its status, its one line, and that nothing "
        "was saved or started.",
        "",
    ]
    for command in commands():
        lines += _section(command)
    return "\n".join(lines)
