"""Ready maps (R12.13): shipped map templates a GM without a map image starts from. Each is
a JSON file in app/maps/data/ (places with their positions and incomes, places on a place's
own map, paths) beside its images, all package data read through importlib.resources.

Names are written in each language the server speaks and the GM's language when choosing
decides them: from then on they are the campaign's own text, like names the GM typed (one
campaign, one set of names for every player; the GM renames them at will)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path as FsPath
from typing import Any

from sqlmodel import Session, func, select

from app.accounts.models import User
from app.audit import service as audit
from app.campaigns import rules as campaign_rules
from app.campaigns.models import Campaign
from app.core.db import saved_id
from app.core.errors import DomainError
from app.core.i18n import LOCALES
from app.core.images import store_image
from app.maps.models import Path, Place
from app.maps.service import AUDITED
from app.visibility import gm_viewer

KEYS = ("region", "city")  # in the order the wizard offers them
PATHS_MODULE = "paths"


@dataclass(frozen=True)
class ReadyMap:
    key: str
    names: dict[str, str]
    summary: dict[str, str]
    image: str
    places: tuple[dict[str, Any], ...]
    paths: tuple[tuple[str, str], ...]

    def name(self, locale: str) -> str:
        return self.names.get(locale) or self.names["en"]

    def describe(self, locale: str) -> str:
        return self.summary.get(locale) or self.summary["en"]


def _data():
    return resources.files("app.maps") / "data"


@cache
def ready_maps() -> dict[str, ReadyMap]:
    found = {}
    for key in KEYS:
        raw = json.loads((_data() / f"{key}.json").read_text(encoding="utf-8"))
        found[key] = ReadyMap(
            key=key,
            names=raw["name"],
            summary=raw["summary"],
            image=raw["image"],
            places=tuple(raw["places"]),
            paths=tuple((a, b) for a, b in raw["paths"]),
        )
    return found


def image_bytes(name: str) -> bytes:
    return (_data() / name).read_bytes()


@dataclass(frozen=True)
class Filled:
    campaign: Campaign
    ready: ReadyMap
    places: int
    paths: int


def fill_map(session: Session, *, actor: User, campaign_id: int, key: str, locale: str, media_dir: FsPath) -> Filled:
    """The draft's map from a ready map: its image, places (and their own maps), paths, and
    the paths module on. Only a draft whose map has no place yet: nothing the GM made is
    replaced or mixed with the template's."""
    viewer = gm_viewer(session, actor, campaign_id)
    campaign = viewer.campaign
    ready = ready_maps().get(key)
    if ready is None:
        raise DomainError("ready_map_unknown", choices=", ".join(KEYS))
    if campaign.status != "setup":
        raise DomainError("ready_map_not_draft")
    if session.exec(select(func.count()).select_from(Place).where(Place.campaign_id == campaign_id)).one():
        raise DomainError("ready_map_not_empty")
    language = locale if locale in LOCALES else "en"
    _set_image(campaign, ready.image, media_dir)
    campaign.modules = campaign_rules.normalize_modules(campaign.modules, {PATHS_MODULE: True})
    session.add(campaign)
    made: dict[str, Place] = {}
    for row in ready.places:  # a place on a place's map comes after that place in the file
        place = Place(
            campaign_id=campaign_id,
            parent_id=made[row["parent"]].id if row.get("parent") else None,
            name=row["name"].get(language) or row["name"]["en"],
            income=row["income"],
            hideout_slot=row["hideout_slot"],
            x=row["x"],
            y=row["y"],
            has_map=bool(row.get("has_map")),
            entry=bool(row.get("entry")),
        )
        if row.get("map"):
            _set_image(place, row["map"], media_dir)
        session.add(place)
        session.flush()
        made[row["id"]] = place
    for a, b in ready.paths:
        session.add(Path(campaign_id=campaign_id, from_place_id=saved_id(made[a].id), to_place_id=saved_id(made[b].id)))
    session.flush()
    for place in made.values():  # R12.9: one row a place, as the map editor writes, marked as the template's
        after = {**audit.snapshot(place, AUDITED), "added_with": f"ready map: {ready.key}"}
        audit.record(session, campaign, actor, "place_added", f"place:{place.id}", after=after)
    return Filled(campaign, ready, len(made), len(ready.paths))


def _set_image(target: Campaign | Place, name: str, media_dir: FsPath) -> None:
    """Stored as an upload is: the campaign gets files of its own, under new names."""
    stored = store_image(image_bytes(name), media_dir)
    target.map_image, target.map_original = stored.web, stored.original
    target.map_width, target.map_height = stored.width, stored.height
