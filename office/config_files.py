"""Reading a workspace or profile file a user wrote, with one clear line for every way it can be wrong.

YAML (`.yaml`, `.yml`, anything else) or JSON (`.json`). A file that cannot be read, is not UTF-8, holds a NUL
byte, does not parse, repeats a key (YAML and JSON both let the last one win silently), uses a YAML anchor or
alias, or is not a mapping is refused with a ConfigFileError naming the file, the place and the fix. Settings
that do not validate are described by `describe_validation`, which names unknown keys and lists the known ones.
"""

import json
import types
import typing
from pathlib import Path
from typing import Any, Union

import yaml
from pydantic import BaseModel, ValidationError

MAX_FILE_BYTES = 1_000_000


class ConfigFileError(ValueError):
    """The file could not be turned into a mapping of settings; the message is one line naming the fix."""


class UniqueKeyLoader(yaml.SafeLoader):
    """SafeLoader that refuses a key repeated in one mapping instead of letting the last one win, and anchors and
    aliases (`&a`, `*a`): a few hundred bytes of nested aliases expand to billions of values ("billion laughs"),
    and a settings file has no need for them."""

    def compose_node(self, parent: yaml.Node | None, index: int) -> yaml.Node | None:
        event = self.peek_event()  # type: ignore[no-untyped-call]  # types-PyYAML leaves peek_event unannotated
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None) is not None:
            raise AliasRefused(event.start_mark.line + 1, isinstance(event, yaml.AliasEvent))
        return super().compose_node(parent, index)

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                if key in seen:
                    raise DuplicateKey(key, seen[key], line)
                seen[key] = line
            except TypeError:
                raise yaml.constructor.ConstructorError(
                    None, None, f"a mapping key must be a plain value, not {type(key).__name__}", key_node.start_mark
                ) from None
        return super().construct_mapping(node, deep=deep)


class AliasRefused(Exception):
    def __init__(self, line: int, alias: bool):
        super().__init__(line, alias)
        self.line, self.what = line, "an alias (*name)" if alias else "an anchor (&name)"


class DuplicateKey(Exception):
    def __init__(self, key: object, first: int, again: int):
        super().__init__(key, first, again)
        self.key, self.first, self.again = key, first, again


def _no_duplicate_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKey(key, 0, 0)
        out[key] = value
    return out


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def read_text(path: Path) -> str:
    """The file's text, or ConfigFileError: missing, a directory, unreadable, too large, not UTF-8, NUL bytes."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigFileError(f"{path}: no such file; check the path given to --file") from None
    except IsADirectoryError:
        raise ConfigFileError(f"{path}: is a directory; give the path of a YAML or JSON file") from None
    except PermissionError:
        raise ConfigFileError(f"{path}: permission denied; make the file readable") from None
    except OSError as err:
        raise ConfigFileError(f"{path}: cannot be read ({_one_line(err.strerror or str(err))})") from None
    if len(data) > MAX_FILE_BYTES:
        raise ConfigFileError(f"{path}: is {len(data)} bytes; a settings file is at most {MAX_FILE_BYTES} bytes")
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise ConfigFileError(f"{path}: line {line} holds a NUL byte; settings files are text, remove it")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise ConfigFileError(
            f"{path}: line {line} is not UTF-8 (byte 0x{data[err.start]:02x}); save the file as UTF-8"
        ) from None
    return text.removeprefix("\ufeff")


def parse(text: str, path: Path) -> dict[str, Any]:
    """YAML or JSON text as a mapping, or ConfigFileError naming the place and the problem."""
    is_json = path.suffix.lower() == ".json"
    try:
        data = (
            json.loads(text, object_pairs_hook=_no_duplicate_pairs)
            if is_json
            else yaml.load(text, Loader=UniqueKeyLoader)  # a SafeLoader subclass
        )
    except DuplicateKey as dup:
        where = f" (lines {dup.first} and {dup.again})" if dup.first else ""
        raise ConfigFileError(
            f"{path}: key {dup.key!r} appears twice in one mapping{where}; keep one (the last would silently win)"
        ) from None
    except AliasRefused as ref:
        raise ConfigFileError(
            f"{path}: line {ref.line} uses {ref.what}; YAML anchors and aliases are not allowed in settings files, "
            f"write each value out"
        ) from None
    except json.JSONDecodeError as err:
        raise ConfigFileError(f"{path}: not valid JSON at line {err.lineno} column {err.colno}: {err.msg}") from None
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        problem = _one_line(err.problem or err.context or "syntax error")
        raise ConfigFileError(f"{path}: not valid YAML{where}: {problem}") from None
    except yaml.YAMLError as err:
        raise ConfigFileError(f"{path}: not valid YAML: {_one_line(str(err))}") from None
    except RecursionError:
        raise ConfigFileError(f"{path}: nested too deeply to be a settings file") from None
    if data is None:
        raise ConfigFileError(f"{path}: is empty; write the settings as a mapping (e.g. name: my-workspace)")
    if not isinstance(data, dict):
        raise ConfigFileError(
            f"{path}: the top level is a {type(data).__name__}; write the settings as a mapping (key: value)"
        )
    return data


def load_config_file(path: Path) -> dict[str, Any]:
    return parse(read_text(path), path)


# --- validation errors, one line ----------------------------------------------------------------------
def _unwrap(annotation: Any) -> Any:
    """`X | None` → X; Annotated[X, …] → X."""
    while True:
        origin = typing.get_origin(annotation)
        if origin is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (Union, types.UnionType):
            args = [a for a in typing.get_args(annotation) if a is not type(None)]
            if len(args) != 1:
                return annotation
            annotation = args[0]
        else:
            return annotation


def _model_at(model: type[BaseModel], loc: tuple[int | str, ...]) -> type[BaseModel] | None:
    """The model class the settings at `loc` are validated as, if one can be followed there."""
    current: Any = model
    for part in loc:
        current = _unwrap(current)
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = current.model_fields.get(str(part))
            if field is None:
                return None
            current = field.annotation
        elif typing.get_origin(current) in (dict, list):
            current = typing.get_args(current)[-1]
        else:
            return None
    current = _unwrap(current)
    return current if isinstance(current, type) and issubclass(current, BaseModel) else None


def describe_validation(err: ValidationError, model: type[BaseModel] | None = None) -> str:
    """`path: message` for each problem on one line; an unknown key names the settings known at its place."""
    parts = []
    for e in err.errors():
        loc = tuple(e["loc"])
        where = ".".join(str(p) for p in loc)
        message = e["msg"].removeprefix("Value error, ")
        if e["type"] == "extra_forbidden":
            parent = _model_at(model, loc[:-1]) if model is not None else None
            known = f" (known here: {', '.join(parent.model_fields)})" if parent is not None else ""
            message = f"is not a known setting{known}; check its spelling or remove it"
        parts.append(f"{where}: {message}" if loc else message)  # a whole-file check names its own settings
    return "; ".join(parts)
