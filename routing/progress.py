"""What a run's agent is doing, as `office watch` shows it: the agent's messages (redacted excerpts) and its tool
calls (kind and path, never file contents), collected while a turn runs and taken in batches to be stored.

Pure: the executors feed a `ProgressLog` as the agent's updates arrive (synchronously, it never raises), and the
turn activity takes what is ready every so often (activities.run_events). Message text is redacted
(routing.redact) before it leaves the log; a batch is cut at a line end, or a few words before the end of what
has arrived, so a secret split across two chunks of the agent's stream is still redacted whole."""

import os
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from routing.redact import redact

MAX_TEXT = 300  # characters of one message event (longer messages become several events)
MAX_TITLE = 120  # characters of a tool call's title
MAX_PATH = 500
MAX_EVENTS = 400  # per attempt: past it, the rest is counted, not recorded
HOLD = timedelta(seconds=2)  # an unfinished line is shown after this long anyway (without its last words)
HELD_WORDS = 3  # words held back from an unfinished line: a `key = value` pair is redacted whole
DONE_STATUSES = ("completed", "failed")


@dataclass(frozen=True)
class ProgressEvent:
    at: datetime
    kind: str  # message | tool | tool_done | note
    text: str | None = None
    tool_kind: str | None = None
    path: str | None = None


def relative(path: str, cwd: str | None) -> str:
    """A path as the run's working copy names it: the worker's own directories are none of the watcher's business."""
    if cwd and (path == cwd or path.startswith(cwd.rstrip("/") + "/")):
        return os.path.relpath(path, cwd)
    return path


@dataclass
class ProgressLog:
    """One attempt's progress: message text as it streams in, tool calls as they start and end."""

    cwd: str | None = None
    limit: int = MAX_EVENTS
    _ready: list[ProgressEvent] = field(default_factory=list)
    _text: str = ""  # message text not yet taken
    _since: datetime | None = None  # when the oldest untaken text arrived
    _tools: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # call id -> (kind, path)
    _recorded = 0
    _dropped = 0

    def message(self, piece: str, now: datetime) -> None:
        if not piece:
            return
        if not self._text:
            self._since = now
        self._text += piece

    def tool(
        self, call_id: str, kind: str | None, title: str | None, paths: list[str], status: str | None, now: datetime
    ) -> None:
        """A tool call starts (first seen) or ends (a completed or failed status)."""
        known = self._tools.get(call_id)
        path = next((p for p in paths if p), None)
        if known is None:
            kind = kind or "other"
            self._tools[call_id] = (kind, path)
            self._cut_message(now, final=True)  # what the agent said before the call comes first
            self._add(ProgressEvent(now, "tool", self._title(title), kind, self._path(path)))
            if status not in DONE_STATUSES:
                return
        kind, path = self._tools.pop(call_id, (kind or "other", path))
        if status in DONE_STATUSES:
            self._cut_message(now, final=True)
            self._add(ProgressEvent(now, "tool_done", status, kind, self._path(path)))

    def take(self, now: datetime, final: bool = False) -> list[ProgressEvent]:
        """The events ready to store; `final`: the turn is over, everything goes (and what was not recorded is said)."""
        self._cut_message(now, final)
        if final and self._dropped:
            dropped, self._dropped = self._dropped, 0
            self._ready.append(ProgressEvent(now, "note", f"{dropped} more updates of this attempt not recorded"))
        ready, self._ready = self._ready, []
        return ready

    def _title(self, title: str | None) -> str | None:
        if not title:
            return None
        if self.cwd:
            title = title.replace(self.cwd.rstrip("/") + "/", "")
        return redact(title, MAX_TITLE) or None

    def _path(self, path: str | None) -> str | None:
        if not path:
            return None
        shown = relative(path, self.cwd)
        return shown if len(shown) <= MAX_PATH else "…" + shown[-(MAX_PATH - 1) :]

    def _cut_message(self, now: datetime, final: bool) -> None:
        text = self._text
        if not text:
            return
        if final:
            cut = len(text)
        elif (line_end := text.rfind("\n")) >= 0:
            cut = line_end + 1
        elif len(text) > MAX_TEXT or (self._since is not None and now - self._since >= HOLD):
            cut = _before_last_words(text, HELD_WORDS)
        else:
            cut = 0
        if cut <= 0:
            return
        shown, self._text = redact(text[:cut], limit=len(text) + 1), text[cut:]
        self._since = now if self._text else None
        while shown:
            space = shown.rfind(" ", 0, MAX_TEXT) if len(shown) > MAX_TEXT else -1
            piece = shown[: space if space > 0 else MAX_TEXT]
            self._add(ProgressEvent(now, "message", piece.strip()))
            shown = shown[len(piece) :].lstrip()

    def _add(self, event: ProgressEvent) -> None:
        if self._recorded >= self.limit:
            self._dropped += 1
            return
        self._recorded += 1
        self._ready.append(event)


def _before_last_words(text: str, words: int) -> int:
    """Where `text` ends without its last `words` words (0 when it has no more than those)."""
    end = len(text.rstrip())
    for _ in range(words):
        end = max(text.rfind(" ", 0, end), text.rfind("\t", 0, end))
        if end <= 0:
            return 0
        end = len(text[:end].rstrip())
    return end
