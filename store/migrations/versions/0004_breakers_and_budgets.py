"""provider health as a shared circuit breaker, retry budget and pacer: failure streak, probe lease, request
window, next dispatch slot

Revision ID: 0004
Revises: 0003
"""
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

def columns() -> list[sa.Column[Any]]:
    return [
        sa.Column("failure_streak", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("probe_holder", sa.String(200), nullable=True),
        sa.Column("probe_expires", sa.DateTime(timezone=True), nullable=True),
        sa.Column("window_start", sa.DateTime(timezone=True), nullable=True),
        sa.Column("window_requests", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("window_retries", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("window_failures", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("next_slot_at", sa.DateTime(timezone=True), nullable=True),
    ]


def upgrade() -> None:
    with op.batch_alter_table("provider_health") as batch:
        for column in columns():
            batch.add_column(column)


def downgrade() -> None:
    with op.batch_alter_table("provider_health") as batch:
        for column in reversed(columns()):
            batch.drop_column(column.name)
