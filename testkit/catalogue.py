"""The fingerprint of the classifier's rules catalogue: the code of every routing module `classify` reads, as the
parser sees it (comments, docstrings and layout left out), so that a change to anything that decides a code (a rule,
the status table, a confidence, a JSON-RPC or exit-code reading, the learned counts, the reset hints) asks for a new
CATALOGUE_VERSION, and a reformatted or re-commented module does not."""

import ast
import functools
import hashlib
import importlib.util
from collections.abc import Callable
from pathlib import Path

from activities.nearest import stored

# The classifier, and the third stage the office runs beside it (its settings; its stored lines are fingerprinted apart)
ROOT_MODULES = ("routing.classifier", "activities.nearest")
VERSION_NAME = "CATALOGUE_VERSION"  # the version's own assignment is what the fingerprint names, not part of it


def _path(module: str) -> Path:
    spec = importlib.util.find_spec(module)
    assert spec is not None and spec.origin is not None, f"{module} is not importable"
    return Path(spec.origin)


def _is_package(module: str) -> bool:
    spec = importlib.util.find_spec(module)
    return spec is not None and spec.submodule_search_locations is not None


def _routing_imports(tree: ast.Module) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "routing":
            found.add(node.module)
            if _is_package(node.module):  # `from routing.rules import agents` names a module too
                found |= {
                    f"{node.module}.{a.name}"
                    for a in node.names
                    if importlib.util.find_spec(f"{node.module}.{a.name}") is not None
                }
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.split(".")[0] == "routing"}
    return found


def _without_docs_and_version(tree: ast.Module) -> ast.Module:
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if not isinstance(body, list) or not body:
            continue
        first = body[0]
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
            setattr(node, "body", body[1:] or [ast.Pass()])  # noqa: B010 (`body` is not on every node's type)
    tree.body = [
        n
        for n in tree.body
        if not (isinstance(n, ast.Assign) and any(getattr(t, "id", None) == VERSION_NAME for t in n.targets))
    ]
    return tree


@functools.cache
def deciding_modules() -> tuple[str, ...]:
    """Every routing module the classifier reads, directly or through another one, parents included (found once a
    process: the checkout's files do not change under a test run)."""
    seen: set[str] = set()
    todo = list(ROOT_MODULES)
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        parent = module.rpartition(".")[0]
        if parent and parent not in ("routing", "activities"):
            todo.append(parent)
        todo.extend(_routing_imports(ast.parse(module_source(module))))
    return tuple(sorted(seen))


def module_source(module: str) -> str:
    return _path(module).read_text()


def catalogue_fingerprint(source: Callable[[str], str] = module_source) -> str:
    """`source`: a module's text by its name (a test reads a changed copy through it)."""
    digest = hashlib.sha256()
    for module in deciding_modules():
        tree = _without_docs_and_version(ast.parse(source(module)))
        digest.update(module.encode())
        digest.update(ast.dump(tree, annotate_fields=False, include_attributes=False).encode())
    digest.update(stored().fingerprint.encode())  # the training lines the third stage compares with
    return digest.hexdigest()[:16]
