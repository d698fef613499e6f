"""durable selections (user pins), their event log (incl. watchdog clean-ups), provider health events

Revision ID: 0003
Revises: 0002
"""
import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "selections",
        sa.Column("agent", sa.String(63), primary_key=True),
        sa.Column("kind", sa.String(20), primary_key=True),
        sa.Column("value", sa.JSON(), nullable=False),
        sa.Column("source", sa.String(20), nullable=False),
        sa.Column("actor", sa.String(120), nullable=True),
        sa.Column("written_by_run", sa.String(200), nullable=True),
        sa.Column("created_at", TS, nullable=False),
    )
    op.create_table(
        "selection_events",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("agent", sa.String(63), nullable=False),
        sa.Column("kind", sa.String(20), nullable=False),
        sa.Column("value", sa.JSON(), nullable=False),
        sa.Column("source", sa.String(20), nullable=False),
        sa.Column("action", sa.String(20), nullable=False),
        sa.Column("actor", sa.String(120), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("written_by_run", sa.String(200), nullable=True),
        sa.Column("at", TS, nullable=False),
    )
    op.create_index("ix_selection_events_at", "selection_events", ["at"])
    op.create_table(
        "health_events",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("provider", sa.String(63), nullable=False),
        sa.Column("model", sa.String(200), nullable=False),
        sa.Column("state", sa.String(30), nullable=False),
        sa.Column("retry_at", TS, nullable=True),
        sa.Column("code", sa.String(40), nullable=True),
        sa.Column("run_id", sa.String(200), nullable=True),
        sa.Column("at", TS, nullable=False),
    )
    op.create_index("ix_health_events_run_id", "health_events", ["run_id"])


def downgrade() -> None:
    op.drop_index("ix_health_events_run_id", table_name="health_events")
    op.drop_table("health_events")
    op.drop_index("ix_selection_events_at", table_name="selection_events")
    op.drop_table("selection_events")
    op.drop_table("selections")
