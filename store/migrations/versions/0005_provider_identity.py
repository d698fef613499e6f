"""provider health, breaker, budget and pacer keyed by the provider's identity (kind + endpoint + credential
reference, routing.identity.provider_key) instead of its name; names stay for display; attempts and health
events carry the key

Existing rows are re-keyed from the stored workspaces: a name that one identity uses gets that identity's key;
a name that several workspaces give to different identities (the bug this fixes) is copied to each of them, so
no protection is lost (each copy heals on its own provider's next success); a name no workspace uses any more
keeps a legacy key and still shows in `office health list`.

Revision ID: 0005
Revises: 0004
"""
import json

import sqlalchemy as sa
from alembic import op

from routing.identity import identity_key, legacy_key

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

KEY = sa.String(63)


def health_table(by_key: bool) -> sa.Table:
    """provider_health as of this revision (by_key) or the one before it (the table is rebuilt)."""
    ts = sa.DateTime(timezone=True)
    key_columns = [
        sa.Column("provider_key", KEY, primary_key=True),
        sa.Column("provider", sa.String(63), nullable=False),
    ]
    return sa.Table(
        "provider_health",
        sa.MetaData(),
        *(key_columns if by_key else [sa.Column("provider", sa.String(63), primary_key=True)]),
        sa.Column("model", sa.String(200), primary_key=True),
        sa.Column("state", sa.String(30), nullable=False),
        sa.Column("retry_at", ts, nullable=True),
        sa.Column("backoff_step", sa.Integer(), nullable=False),
        sa.Column("last_code", sa.String(40), nullable=True),
        sa.Column("last_run_id", sa.String(200), nullable=True),
        sa.Column("updated_at", ts, nullable=False),
        sa.Column("failure_streak", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("probe_holder", sa.String(200), nullable=True),
        sa.Column("probe_expires", ts, nullable=True),
        sa.Column("window_start", ts, nullable=True),
        sa.Column("window_requests", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("window_retries", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("window_failures", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("next_slot_at", ts, nullable=True),
    )


def keys_by_name(conn: sa.Connection) -> dict[str, list[str]]:
    """Every identity each provider name stands for, across the stored workspaces (sorted, so re-runs agree)."""
    found: dict[str, set[str]] = {}
    for (config,) in conn.execute(sa.text("SELECT config FROM workspaces")):
        if isinstance(config, str):  # SQLite hands JSON back as text through a raw query
            config = json.loads(config)
        for name, profile in (config or {}).get("providers", {}).items():
            kind = profile.get("kind") or "openai"
            command = (profile.get("command") or []) if kind == "acp" else []
            key = identity_key(kind, profile.get("base_url"), command, profile.get("credential_env"))
            found.setdefault(name, set()).add(key)
    return {name: sorted(keys) for name, keys in found.items()}


def upgrade() -> None:
    conn = op.get_bind()
    keys = keys_by_name(conn)
    # The primary key changes: the table is rebuilt in its new shape (on both backends) and its rows re-keyed.
    rows = [dict(r._mapping) for r in conn.execute(sa.select(health_table(by_key=False)))]
    op.drop_table("provider_health")
    new = health_table(by_key=True)
    new.create(conn)
    for row in rows:
        # A name several identities share: its evidence is copied to each (nothing loses its protection).
        for key in keys.get(row["provider"]) or [legacy_key(row["provider"])]:
            conn.execute(new.insert().values(**(row | {"provider_key": key})))

    for table in ("health_events", "attempts"):
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("provider_key", KEY, nullable=True))
        t = sa.table(table, sa.column("provider", sa.String), sa.column("provider_key", KEY))
        for name, found in keys.items():
            if len(found) == 1:  # only where the name is unambiguous; older rows stay unkeyed otherwise
                conn.execute(t.update().where(t.c.provider == name).values(provider_key=found[0]))


def downgrade() -> None:
    for table in ("attempts", "health_events"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("provider_key")
    conn = op.get_bind()
    # One row per (name, model) again: the most recently updated identity's row wins.
    current = health_table(by_key=True)
    rows = [dict(r._mapping) for r in conn.execute(sa.select(current).order_by(current.c.updated_at))]
    op.drop_table("provider_health")
    old = health_table(by_key=False)
    old.create(conn)
    latest = {(r["provider"], r["model"]): r for r in rows}
    for row in latest.values():
        row.pop("provider_key", None)
        conn.execute(old.insert().values(**row))
