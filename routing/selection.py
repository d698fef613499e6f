"""Who chose a route or model. Only `user` selections may become durable preference; the type that the
preference writer accepts cannot carry any other source."""

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field


class SelectionSource(StrEnum):
    user = "user"  # an explicit user or operator action
    auto = "auto"  # runtime recovery: lives in the run (attempts, effective model, search attributes)
    default = "default"  # configuration


class SelectionKind(StrEnum):
    provider = "provider"  # pin the agent to these providers
    model = "model"  # pin the agent to this model


class UserSelection(BaseModel):
    """A durable per-agent override. `source` is fixed to user: nothing else can be constructed."""

    agent: str
    kind: SelectionKind
    value: list[str] = Field(min_length=1)
    actor: str = Field(min_length=1)
    reason: str = ""
    source: Literal[SelectionSource.user] = SelectionSource.user


class Pins(BaseModel):
    providers: list[str] = Field(default_factory=list)
    model: str | None = None

    @property
    def any(self) -> bool:
        return bool(self.providers or self.model)


class UserDecision(BaseModel):
    """The answer to a run parked `awaiting_user_decision` or `unreadable_failure`: for this run only, never saved."""

    action: Literal["substitute", "retry", "cancel"]
    provider: str | None = None
    model: str | None = None
    actor: str = "user"
