"""`python -m docs.gen` regenerates the reference pages from the code; `--check` only says which are stale."""

import sys

from docs.gen.pages import stale, write


def main(argv: list[str]) -> int:
    if "--check" in argv:
        pages = stale()
        for page in pages:
            print(f"docs/{page} is stale: run `python -m docs.gen` and commit it", file=sys.stderr)
        return 1 if pages else 0
    for page in write():
        print(f"wrote docs/{page}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
