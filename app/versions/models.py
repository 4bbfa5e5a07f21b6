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


class AudienceVersion(SQLModel, table=True):
    """How many committed transactions changed what one audience of a campaign sees (issue 37):
    seat 0 is every member of it (campaign 0, seat 0: changes placed in no campaign), seat -1
    its game masters, a positive seat the player of that id alone, and seat -1 - u user u
    alone (an invitee, a calendar link's holder). A page's cheap revalidation
    is keyed by the viewer's rows, so a secret act moves only the rows of those who may see it
    (app/versions/audience.py) and the timing of anyone else's revalidation stays as it was
    (R11.2). No foreign key, as above."""

    __tablename__ = "audience_version"
    campaign_id: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    seat: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    version: int = 0
