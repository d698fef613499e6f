"""provider catalogs: the models each executor last advertised (for gone-model reporting)

Revision ID: 0002
Revises: 0001
"""
import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "provider_catalogs",
        sa.Column("provider", sa.String(63), primary_key=True),
        sa.Column("models", sa.JSON(), nullable=False),
        sa.Column("observed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("run_id", sa.String(200), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("provider_catalogs")
