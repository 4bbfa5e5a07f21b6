"""What a campaign document holds: one part per table, in an order where every reference
points back to a part already read (so an import can create them in this order). A part
with a parent is written inside its parent's rows, under `key`, without the column that
names the parent.

Columns are taken from the tables themselves: every column but the row's id and its
campaign, with foreign keys renumbered (app/exports/document.py). So a column added to one
of these tables travels in the document without a change here; a new table needs a line."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Column
from sqlmodel import SQLModel

from app.alliances.models import Alliance, AllianceMember
from app.battles.models import Arrival, Battle, BattleConfirmation, BattlePhoto, BattleWarband
from app.campaigns.models import Player
from app.chronicle.models import ChronicleEntry
from app.clock.models import BattleClock
from app.companies.models import Company, CompanyItem, CompanyModel
from app.core.db import table_of
from app.events.models import Event
from app.gold.models import LedgerEntry, Transfer
from app.guilds.models import Guild, GuildMember, GuildRequest, GuildRoundMember
from app.maps.models import Hideout, Path, Place
from app.rounds.models import TwilightChoice
from app.settlement.models import Ransom, Settlement
from app.warbands.models import Order, Warband, WarbandMember


@dataclass(frozen=True)
class Part:
    name: str
    model: type[SQLModel]
    parent: str | None = None
    key: str | None = None  # its list inside the parent's rows
    via: str | None = None  # the column naming the parent

    @property
    def table(self) -> str:
        return table_of(self.model).name


PARTS: tuple[Part, ...] = (
    Part("players", Player),
    Part("places", Place),
    Part("paths", Path),
    Part("hideouts", Hideout),
    Part("events", Event),
    Part("companies", Company),
    Part("company_models", CompanyModel, "companies", "models", "company_id"),
    Part("company_items", CompanyItem, "companies", "items", "company_id"),
    Part("warbands", Warband),
    Part("warband_members", WarbandMember, "warbands", "members", "warband_id"),
    Part("orders", Order),
    Part("battles", Battle),
    Part("battle_warbands", BattleWarband, "battles", "warbands", "battle_id"),
    Part("battle_confirmations", BattleConfirmation, "battles", "confirmations", "battle_id"),
    Part("battle_clocks", BattleClock, "battles", "clocks", "battle_id"),
    Part("battle_photos", BattlePhoto, "battles", "photos", "battle_id"),
    Part("arrivals", Arrival),
    Part("settlements", Settlement),
    Part("ransoms", Ransom),
    Part("ledger", LedgerEntry),
    Part("transfers", Transfer),
    Part("guilds", Guild),
    Part("guild_members", GuildMember, "guilds", "members", "guild_id"),
    Part("guild_requests", GuildRequest, "guilds", "requests", "guild_id"),
    Part("guild_round_members", GuildRoundMember),
    Part("alliances", Alliance),
    Part("alliance_members", AllianceMember, "alliances", "members", "alliance_id"),
    Part("twilight_choices", TwilightChoice),
    Part("chronicle", ChronicleEntry),
)
BY_NAME = {p.name: p for p in PARTS}
BY_TABLE = {p.table: p.name for p in PARTS}
TOP = tuple(p for p in PARTS if p.parent is None)
CHILDREN = {p.name: tuple(c for c in PARTS if c.parent == p.name) for p in PARTS}

# Image columns travel as the image itself (document.py), never as a file name of this server.
IMAGE_COLUMNS = {"map_image", "map_original", "map_width", "map_height", "cover_image"}
# A battle's photo (R12.3) travels as its image too, under "image"; the other server keeps it by its own hash.
PHOTO_COLUMNS = {"name", "width", "height"}
SKIPPED = {"id", "campaign_id"}


def columns(part: Part) -> list[Column]:
    """The columns a part's rows carry, in the table's order."""
    return [
        c
        for c in table_of(part.model).columns
        if c.name not in SKIPPED
        and c.name not in IMAGE_COLUMNS
        and c.name != part.via
        and not (part.name == "battle_photos" and c.name in PHOTO_COLUMNS)
    ]


def reference(column) -> str | None:
    """The part a foreign key column points to ("user" for an account), or None."""
    for fk in column.foreign_keys:
        table = fk.column.table.name
        return "user" if table == "user_account" else BY_TABLE[table]
    return None
