"""attempts are read by workspace and finish time: a workspace's spend over a budget window (a UTC day or month)
is summed before each attempt of its runs

Revision ID: 0011
Revises: 0010
"""

from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_attempts_workspace_finished_at", "attempts", ["workspace", "finished_at"])


def downgrade() -> None:
    op.drop_index("ix_attempts_workspace_finished_at", table_name="attempts")
