"""Route resolution: workspace order + agent profile + pins + provider health → ordered candidates."""

from datetime import datetime

from pydantic import BaseModel

from routing.config import AgentProfile, WorkspaceConfig
from routing.decider import HealthState
from routing.identity import provider_key
from routing.run import Candidate, Ineligible, RoutePlan
from routing.selection import Pins, SelectionSource


class HealthRecord(BaseModel):
    """Evidence about one provider identity (routing.identity.provider_key); `provider` is the name of the
    workspace entry that last wrote it, for display. A record without a key (built by hand) matches by name."""

    provider: str
    provider_key: str | None = None
    model: str | None = None  # None: the whole provider; else only that model on it
    state: HealthState
    retry_at: datetime | None = None
    last_code: str | None = None


def _blocking(
    records: list[HealthRecord], provider: str, key: str, model: str, now: datetime, retry_blocked: bool
) -> HealthRecord | None:
    """The record that keeps this route out, if any. Records are matched by the provider's identity, so another
    workspace's provider of the same name (another endpoint or key) never blocks this one."""
    for rec in records:
        same = rec.provider_key == key if rec.provider_key is not None else rec.provider == provider
        if not same or (rec.model is not None and rec.model != model):
            continue
        if rec.state is HealthState.user_action_required and not retry_blocked:
            return rec
        if rec.state in (HealthState.degraded, HealthState.short_retry) and rec.retry_at and rec.retry_at > now:
            return rec
    return None


def candidate_for(
    workspace: WorkspaceConfig,
    agent: AgentProfile,
    provider: str,
    tier: str,
    emergency: bool = False,
    pinned_model: str | None = None,
    source: SelectionSource = SelectionSource.default,
) -> Candidate:
    profile = workspace.providers[provider]
    override = profile.tiers.get(tier)
    model = pinned_model or (override.model if override and override.model else agent.model)
    return Candidate(
        provider=provider,
        execution_profile=f"{provider}/{tier}",
        profile=profile,
        tier=tier,
        requested_model=model,
        fallback_model=None if pinned_model else agent.fallback_model,
        auto_fallback=False if pinned_model else agent.auto_fallback,
        emergency=emergency,
        model_pinned=pinned_model is not None,
        source=source,
    )


class Substitute(BaseModel):
    """A one-time route the user approved for one parked run; it is never saved."""

    provider: str
    model: str | None = None


def resolve_route(
    workspace: WorkspaceConfig,
    agent: AgentProfile,
    health: list[HealthRecord],
    now: datetime,
    tier: str | None = None,
    excluded: frozenset[str] = frozenset(),
    retry_blocked: bool = False,
    pins: Pins | None = None,
    substitute: Substitute | None = None,
) -> RoutePlan:
    """`retry_blocked`: the user says they fixed what needed action (resume), so try those routes again.
    `pins` (the user's; none when omitted) narrow the order; the profile's pinned_providers apply when no other pin
    is given."""
    pins = pins or Pins()
    tier = tier or workspace.default_tier
    pinned_providers = pins.providers or agent.pinned_providers
    pinned = bool(pinned_providers or pins.model)
    if substitute is not None:
        cand = candidate_for(
            workspace,
            agent,
            substitute.provider,
            tier,
            pinned_model=substitute.model or pins.model,
            source=SelectionSource.user,
        )
        return RoutePlan(
            workspace=workspace.name,
            agent=agent,
            tier=tier,
            max_attempts=workspace.max_attempts,
            pinned=True,
            candidates=[cand],
        )
    normal: list[Candidate] = []
    emergency: list[Candidate] = []
    ineligible: list[Ineligible] = []
    for entry in workspace.provider_order:
        if pinned_providers and entry.provider not in pinned_providers:
            continue
        cand = candidate_for(
            workspace,
            agent,
            entry.provider,
            tier,
            entry.emergency,
            pins.model,
            SelectionSource.user if pinned else SelectionSource.default,
        )
        if entry.provider in excluded:
            ineligible.append(Ineligible(provider=entry.provider, reason="already failed in this route cycle"))
            continue
        key = provider_key(cand.profile)
        block = _blocking(health, entry.provider, key, cand.requested_model, now, retry_blocked)
        if block is not None:
            scope = f" for model {block.model}" if block.model else ""
            ineligible.append(
                Ineligible(
                    provider=entry.provider,
                    retry_at=block.retry_at,
                    code=block.last_code,
                    reason=f"{block.state.value}{scope} after {block.last_code or 'a failure'}",
                )
            )
            continue
        (emergency if entry.emergency else normal).append(cand)
    # Emergency routes are candidates of last resort, only when nothing normal is eligible.
    candidates = normal if normal else emergency
    return RoutePlan(
        workspace=workspace.name,
        agent=agent,
        tier=tier,
        max_attempts=workspace.max_attempts,
        pinned=pinned,
        candidates=candidates,
        ineligible=ineligible,
    )
