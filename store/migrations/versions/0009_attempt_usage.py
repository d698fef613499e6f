"""attempts keep the tokens the executor reported and their cost, with the run's workspace and agent, so usage can
be reported by workspace, agent, provider and model from the attempt rows alone

Revision ID: 0009
Revises: 0008
"""

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

TOKENS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


def upgrade() -> None:
    with op.batch_alter_table("attempts") as batch:
        batch.add_column(sa.Column("workspace", sa.String(length=200), nullable=True))
        batch.add_column(sa.Column("agent", sa.String(length=63), nullable=True))
        for name in TOKENS:
            batch.add_column(sa.Column(name, sa.Integer(), nullable=True))
        batch.add_column(sa.Column("cost_usd", sa.Float(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("attempts") as batch:
        for name in ("cost_usd", *reversed(TOKENS), "agent", "workspace"):
            batch.drop_column(name)
