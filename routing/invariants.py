"""A state the code's own rules make impossible: raised as a named error instead of an `assert` (which `python -O`
strips). It is a bug, never something a user's input or a provider's answer can cause; in workflow code it fails
the workflow task the same way on every replay."""

from typing import TypeVar

T = TypeVar("T")


class InvariantBroken(RuntimeError):
    """The code reached a state its own rules rule out; the message names the rule."""


def present(value: T | None, rule: str) -> T:
    """`value`, which `rule` says is set here."""
    if value is None:
        raise InvariantBroken(rule)
    return value
