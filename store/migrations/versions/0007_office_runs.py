"""office runs registered by their own route resolution: the workers' proof that an activity's scheduling
workflow is an office run, and the workspace it acts in

Revision ID: 0007
Revises: 0006
"""
import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "office_runs",
        sa.Column("workflow_run_id", sa.String(length=64), primary_key=True),
        sa.Column("run_id", sa.String(length=200), nullable=False),
        sa.Column("workspace", sa.String(length=200), nullable=False),
        sa.Column("registered_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_office_runs_run_id", "office_runs", ["run_id"])


def downgrade() -> None:
    op.drop_index("ix_office_runs_run_id", table_name="office_runs")
    op.drop_table("office_runs")
