"""The failover path cannot write preferences: it never imports the writer, and the writer takes only user
selections."""

import ast
from pathlib import Path

import pytest
from pydantic import ValidationError

from routing.selection import SelectionKind, UserSelection

ROOT = Path(__file__).resolve().parents[2]
FAILOVER_PATH = [p for d in ("workflows", "activities") for p in (ROOT / d).rglob("*.py") if p.name != "watchdog.py"]
WRITERS = {"store.preferences", "store.watchdog"}


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{a.name}" for a in node.names}
    return names


def test_failover_path_never_imports_a_preference_writer():
    assert len(FAILOVER_PATH) >= 6
    for path in FAILOVER_PATH:
        assert not imported_modules(path) & WRITERS, f"{path.relative_to(ROOT)} imports a preference writer"


def test_the_shared_repository_has_no_selection_writes():
    text = (ROOT / "store" / "repository.py").read_text()
    assert (
        "SelectionRow(" not in text and "upsert(SelectionRow" not in text and "insert_ignore(SelectionRow" not in text
    )


def test_a_user_selection_cannot_carry_another_source():
    with pytest.raises(ValidationError):
        UserSelection(agent="a", kind=SelectionKind.provider, value=["p"], actor="me", source="auto")


async def test_the_writer_refuses_anything_but_a_user_selection():
    from store.preferences import PreferenceWriter

    forged = UserSelection.model_construct(
        agent="a", kind=SelectionKind.provider, value=["p"], actor="x", source="auto"
    )
    with pytest.raises(TypeError):
        await PreferenceWriter(store=None).set_user_selection(forged)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        await PreferenceWriter(store=None).set_user_selection({"agent": "a", "source": "user"})  # type: ignore[arg-type]
