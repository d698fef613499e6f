"""MkDocs hook (mkdocs.yml `hooks:`): the build stops when a committed reference page is stale, i.e. differs from
what its generator writes from this checkout's code (a model gained a field, a command an option, the decider
decides otherwise). The message names the page and the command that regenerates it."""

import importlib
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def on_pre_build(config: Any) -> None:
    from mkdocs.exceptions import PluginError

    if sys.path[0] != str(ROOT):  # this checkout's code, not whatever copy of the package is installed
        sys.path.insert(0, str(ROOT))
    pages = importlib.import_module("docs.gen.pages")
    found = pages.stale()
    if found:
        raise PluginError(
            f"stale generated pages: {', '.join('docs/' + p for p in found)}; run `python -m docs.gen` and commit them"
        )
