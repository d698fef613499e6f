"""The generated reference pages: which generator writes which page, and whether the committed pages are current.

The pages are committed (they read on any Git host and a change to a model, a command or the decider shows up in
review as a change of its page) and regenerated with `python -m docs.gen`. A page that differs from what its
generator writes now is stale: `make docs` (the MkDocs hook) and tests/unit/test_docs_reference.py fail, naming it.
"""

import importlib
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1]

# Page (relative to docs/) → the generator module whose render() writes it.
GENERATED: dict[str, str] = {
    "reference/configuration.md": "docs.gen.config_reference",
    "reference/cli.md": "docs.gen.cli_reference",
    "reference/errors.md": "docs.gen.error_reference",
    "reference/adapters.md": "docs.gen.adapter_reference",
}


def render(page: str) -> str:
    """What the page's generator writes from the code as it is now."""
    text: str = importlib.import_module(GENERATED[page]).render()
    return text.rstrip("\n") + "\n"


def stale() -> list[str]:
    """The committed pages that differ from what their generators write now (or are missing)."""
    found = []
    for page in GENERATED:
        path = DOCS / page
        if not path.exists() or path.read_text(encoding="utf-8") != render(page):
            found.append(page)
    return found


def write() -> list[str]:
    """Regenerates every page; returns those that changed."""
    changed = stale()
    for page in changed:
        (DOCS / page).parent.mkdir(parents=True, exist_ok=True)
        (DOCS / page).write_text(render(page), encoding="utf-8")
    return changed
