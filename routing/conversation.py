"""A run's conversation: the turns waiting to run (the prompt, its follow-ups, then what `office runs say` added),
the position in the run's transcript, and the bound on a run's history past which the run continues as new.

Pure: the workflow asks these models what to do next and keeps them in its carried state."""

from pydantic import BaseModel, ConfigDict, Field

# A turn's answer as the run's view holds it: this much of its text; the whole answer is in the run's transcript.
EXCERPT_CHARS = 200
# The view holds the references of this many latest answers; `office runs show` reads every answer from the store.
ANSWERS_IN_VIEW = 20
# A continued run carries this many latest attempts in its view; every attempt stays in the store.
ATTEMPTS_CARRIED = 50
# What `say` may queue: one text, and the texts waiting together (each is carried across continue-as-new until it
# runs, and what a run carries is one payload, which Temporal limits in size).
SAY_MAX_CHARS = 100_000
WAITING_MAX_CHARS = 200_000


class HistoryBound(BaseModel):
    """How large one run's workflow history may grow before the run continues as new (same run id, new history).
    Checked between turns: the run continues when its history is within one turn's headroom of either limit, or
    when the server suggests it. A turn's own events (attempts, retries, waits) must fit in `turn_events`; a turn
    adds its answer's bytes (the activity's result) to the history, which `turn_bytes` leaves room for."""

    model_config = ConfigDict(extra="forbid")

    max_events: int = Field(default=10_000, ge=100, le=50_000, description="History events a run may reach.")
    max_bytes: int = Field(
        default=8 * 1024 * 1024, ge=64 * 1024, le=50 * 1024 * 1024, description="History bytes a run may reach."
    )
    turn_events: int = Field(default=500, ge=20, description="Headroom left for one turn's events.")
    turn_bytes: int = Field(default=2 * 1024 * 1024, ge=16 * 1024, description="Headroom left for one turn's bytes.")

    def reached(self, events: int, size: int) -> bool:
        """True when the next turn could take the history past the bound."""
        return events + self.turn_events >= self.max_events or size + self.turn_bytes >= self.max_bytes


# An answer longer than this reaches the workflow's history as its head and a reference to the run's transcript,
# where the whole text is (`office runs show`): a run's history holds no agent output large enough to matter.
ANSWER_IN_HISTORY_CHARS = 32_000


def answer_in_history(text: str, run_id: str, seq: int, limit: int = ANSWER_IN_HISTORY_CHARS) -> str:
    """`text` as the turn's activity returns it to the workflow: whole when short, else its head and where the
    rest is (never longer than `limit` plus the reference line)."""
    if len(text) <= limit:
        return text
    return (
        f"{text[:limit]}\n… [{len(text) - limit} more characters of {len(text)}: the whole answer is entry {seq} "
        f"of run {run_id}'s transcript; `office runs show {run_id}` prints it]"
    )


class AnswerRef(BaseModel):
    """One turn's answer, as the run's view shows it: an excerpt, and where the whole text is in the transcript."""

    turn: int  # 1 for the prompt, then each further turn
    seq: int  # the answer's transcript entry (`office runs show` reads it from the store)
    excerpt: str
    chars: int  # the whole answer's length


def excerpt(text: str, limit: int = EXCERPT_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Conversation(BaseModel):
    """The turns of a run: `begun` turns have started (the next one is transcript entry 2 * begun + 1); `pending`
    are the texts still to run, in order."""

    begun: int = 0
    pending: list[str] = Field(default_factory=list)

    def queue(self, text: str) -> int:
        """Adds a turn after those waiting; returns its number in the run (1 for the prompt)."""
        self.pending.append(text)
        return self.begun + len(self.pending)

    def next_turn(self) -> tuple[int, str] | None:
        """The next turn's index (0 for the prompt) and text, now begun; None when nothing is waiting."""
        if not self.pending:
            return None
        text = self.pending.pop(0)
        self.begun += 1
        return self.begun - 1, text


def say_problem(text: str, waiting: list[str]) -> str | None:
    """Why `say` cannot queue `text`, or None (the validator's check: the text arrives through Temporal)."""
    if not text.strip():
        return "the text is empty; say what the agent should do next"
    if "\x00" in text:
        return "the text contains a NUL byte (\\x00), which cannot be stored; remove it"
    if len(text) > SAY_MAX_CHARS:
        return f"the text has {len(text)} characters; at most {SAY_MAX_CHARS} are accepted"
    if (held := sum(len(t) for t in waiting)) and held + len(text) > WAITING_MAX_CHARS:
        return (
            f"the {len(waiting)} turns already waiting hold {held} characters (at most {WAITING_MAX_CHARS} may "
            f"wait); say more once the run has answered some"
        )
    return None


class Say(BaseModel):
    """`office runs say`: a further turn for a live or idle run."""

    text: str


class SayAccepted(BaseModel):
    turn: int  # the turn's number in the run (1 for the prompt)
    ahead: int  # turns that will run before it (not counting one running now)
