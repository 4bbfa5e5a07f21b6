from __future__ import annotations

from sqlmodel import Field, SQLModel


class CampaignVersion(SQLModel, table=True):
    """How many committed transactions changed a campaign (issue 17): server-side caches are
    keyed by it (never what a viewer receives: issue 27 item 7). Row 0 counts the
    changes that could not be placed in one campaign. No foreign key: the row is bumped at
    commit, whatever else that transaction holds (app/versions/service.py)."""

    __tablename__ = "campaign_version"
    campaign_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    version: int = 0
