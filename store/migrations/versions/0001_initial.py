"""initial: workspaces, agent profiles, transcripts, attempts, provider health, run messages

Revision ID: 0001
Revises:
"""
import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "workspaces",
        sa.Column("name", sa.String(63), primary_key=True),
        sa.Column("config", sa.JSON(), nullable=False),
        sa.Column("updated_at", TS, nullable=False),
    )
    op.create_table(
        "agent_profiles",
        sa.Column("name", sa.String(63), primary_key=True),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("fallback_model", sa.String(200), nullable=True),
        sa.Column("auto_fallback", sa.Boolean(), nullable=False),
        sa.Column("pinned_providers", sa.JSON(), nullable=False),
        sa.Column("updated_at", TS, nullable=False),
    )
    op.create_table(
        "transcript_entries",
        sa.Column("run_id", sa.String(200), primary_key=True),
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("role", sa.String(20), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("provider", sa.String(63), nullable=True),
        sa.Column("created_at", TS, nullable=False),
    )
    op.create_table(
        "attempts",
        sa.Column("run_id", sa.String(200), primary_key=True),
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("provider", sa.String(63), nullable=False),
        sa.Column("execution_profile", sa.String(130), nullable=False),
        sa.Column("requested_model", sa.String(200), nullable=True),
        sa.Column("effective_model", sa.String(200), nullable=True),
        sa.Column("outcome", sa.String(20), nullable=False),
        sa.Column("code", sa.String(40), nullable=True),
        sa.Column("confidence", sa.Float(), nullable=True),
        sa.Column("phase", sa.String(20), nullable=True),
        sa.Column("rule", sa.String(120), nullable=True),
        sa.Column("excerpt", sa.Text(), nullable=True),
        sa.Column("retry_after_s", sa.Float(), nullable=True),
        sa.Column("decision", sa.String(20), nullable=True),
        sa.Column("started_at", TS, nullable=False),
        sa.Column("finished_at", TS, nullable=False),
    )
    op.create_table(
        "provider_health",
        sa.Column("provider", sa.String(63), primary_key=True),
        sa.Column("model", sa.String(200), primary_key=True),
        sa.Column("state", sa.String(30), nullable=False),
        sa.Column("retry_at", TS, nullable=True),
        sa.Column("backoff_step", sa.Integer(), nullable=False),
        sa.Column("last_code", sa.String(40), nullable=True),
        sa.Column("last_run_id", sa.String(200), nullable=True),
        sa.Column("updated_at", TS, nullable=False),
    )
    op.create_table(
        "run_messages",
        sa.Column("idempotency_key", sa.String(200), primary_key=True),
        sa.Column("run_id", sa.String(200), nullable=False),
        sa.Column("kind", sa.String(40), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
    )
    op.create_index("ix_run_messages_run_id", "run_messages", ["run_id"])


def downgrade() -> None:
    op.drop_index("ix_run_messages_run_id", table_name="run_messages")
    for table in ("run_messages", "provider_health", "attempts", "transcript_entries", "agent_profiles",
                  "workspaces"):
        op.drop_table(table)
