"""What a provider is sent: an immutable snapshot of one run's transcript, normalised for the target.

Pure: the activity reads the run's append-only log up to a sequence number and passes the entries here.
Nothing is cached between runs; two runs can never share entries because entries carry their run's seq only."""

import re

from pydantic import BaseModel, Field

TOOL_ID = re.compile(r"\b(call|toolu|tool)_[A-Za-z0-9]+")


class Entry(BaseModel):
    seq: int
    role: str  # user | assistant | tool | reasoning
    content: str
    provider: str | None = None  # who produced it (assistant, tool, reasoning entries)


class ForwardedHistory(BaseModel):
    messages: list[dict[str, str]]
    normalisations: list[str] = Field(default_factory=list)


def continuation_note(previous: list[str], target: str) -> str:
    return (
        f"Continuing this conversation on {target}; earlier answers came from {', '.join(previous)}. "
        "Treat the messages above as the conversation so far."
    )


def forward(entries: list[Entry], target: str, full_history: bool = True) -> ForwardedHistory:
    """`full_history=False` is the stateless mode: only the newest user message is sent."""
    if not full_history:
        last_user = [e for e in entries if e.role == "user"][-1:]
        return ForwardedHistory(
            messages=[{"role": "user", "content": e.content} for e in last_user],
            normalisations=["stateless: forwarded only the newest user message"],
        )
    messages: list[dict[str, str]] = []
    notes: list[str] = []
    tool_ids: dict[str, str] = {}
    for entry in entries:
        foreign = entry.provider is not None and entry.provider != target
        if entry.role == "reasoning":
            if foreign:  # signed/encrypted reasoning from another provider cannot be replayed to this one
                notes.append(f"seq {entry.seq}: dropped a reasoning block from {entry.provider}")
                continue
            messages.append({"role": "assistant", "content": entry.content})
            continue
        content = entry.content
        if foreign and entry.role in ("assistant", "tool"):

            def remap(match: re.Match[str]) -> str:
                return tool_ids.setdefault(match.group(0), f"call_{len(tool_ids) + 1}")

            remapped = TOOL_ID.sub(remap, content)
            if remapped != content:
                notes.append(f"seq {entry.seq}: remapped tool-call ids from {entry.provider}")
                content = remapped
        role = "assistant" if entry.role == "tool" else entry.role
        messages.append({"role": role, "content": content})
    previous = sorted({e.provider for e in entries if e.provider and e.provider != target})
    if previous:
        note = continuation_note(previous, target)
        messages.insert(
            len(messages) - 1 if messages and messages[-1]["role"] == "user" else len(messages),
            {"role": "system", "content": note},
        )
        notes.append(f"added a continuation note (history from {', '.join(previous)})")
    return ForwardedHistory(messages=messages, normalisations=notes)
