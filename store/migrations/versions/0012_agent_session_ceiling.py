"""agent profiles keep their `max_concurrent_sessions` ceiling (workspaces and providers keep theirs in the
workspace's JSON configuration)

Revision ID: 0012
Revises: 0011
"""

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("agent_profiles") as batch:
        batch.add_column(sa.Column("max_concurrent_sessions", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("agent_profiles") as batch:
        batch.drop_column("max_concurrent_sessions")
