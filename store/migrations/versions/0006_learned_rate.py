"""provider health learns the request rate of a provider key with no declared quota: the rate, when it was
set, whether the provider's headers stated it, and
the last 429 (pacing slots given before it are void), and the window's 429s

Revision ID: 0006
Revises: 0005
"""
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def columns() -> list[sa.Column[Any]]:
    return [
        sa.Column("learned_rpm", sa.Float(), nullable=True),
        sa.Column("learned_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("rate_stated", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("limited_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("window_limited", sa.Integer(), nullable=False, server_default="0"),
    ]


def upgrade() -> None:
    with op.batch_alter_table("provider_health") as batch:
        for column in columns():
            batch.add_column(column)


def downgrade() -> None:
    with op.batch_alter_table("provider_health") as batch:
        for column in reversed(columns()):
            batch.drop_column(column.name)
