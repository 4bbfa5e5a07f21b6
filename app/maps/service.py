"""Place, map and path use cases. The wizard's place list, the visual map editor and the
API share these."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path as FsPath
from typing import NamedTuple, TypeVar

from sqlalchemy import bindparam, func, or_
from sqlmodel import Session, col, select

from app.accounts.models import User
from app.audit import service as audit
from app.campaigns import terms
from app.campaigns.models import Campaign
from app.core.db import read_rows
from app.core.errors import DomainError
from app.core.images import MAX_BYTES, store_image
from app.core.ports import Port
from app.maps import layout, rules
from app.maps.models import Hideout, Path, Place
from app.visibility import Viewer, campaign_row, gm_viewer

EDITABLE = ("name", "description", "income", "hideout_slot", "x", "y", "entry")
AUDITED = (*EDITABLE, "parent_id", "has_map")  # R12.9: what a place edit's audit row keeps
PATHS_MODULE = "paths"
MAX_UPLOAD = MAX_BYTES


# Built once (issue 37: the events and places pages read it on every visit; a statement built
# anew costs about 80 µs a request).
_PLACES = select(Place).where(Place.campaign_id == bindparam("campaign_id")).order_by(col(Place.id))


def places(session: Session, campaign_id: int) -> list[Place]:
    return list(session.exec(_PLACES, params={"campaign_id": campaign_id}).all())


class PlaceRow(NamedTuple):
    """What the dashboard shows of a place (its name, ⚑, income and owner)."""

    id: int
    name: str
    income: int
    hideout_slot: bool
    owner_player_id: int | None


AnyPlace = TypeVar("AnyPlace", Place, PlaceRow)
_PLACE_ROWS = (
    select(Place.id, Place.name, Place.income, Place.hideout_slot, Place.owner_player_id)
    .where(Place.campaign_id == bindparam("campaign_id"))
    .order_by(Place.id)
)


def place_rows(session: Session, campaign_id: int) -> list[PlaceRow]:
    """The campaign's places as rows, not Place objects: sixty of those cost a dashboard about
    a millisecond (issue 37)."""
    return [PlaceRow(*row) for row in read_rows(session, _PLACE_ROWS, {"campaign_id": campaign_id}).all()]


_HIDEOUT_PLACES = select(Hideout.place_id).where(Hideout.campaign_id == bindparam("campaign_id"))


def hideout_place_ids(session: Session, campaign_id: int) -> set[int]:
    return set(read_rows(session, _HIDEOUT_PLACES, {"campaign_id": campaign_id}).scalars())


def editor_rows(places_: list[Place]) -> tuple[list[tuple[Place, int]], list[Place]]:
    """The place list in map order with levels, and where a new place may be put."""
    by_id = {p.id: p for p in places_}
    parents = {p.id: p.parent_id for p in places_}
    rows = [(by_id[i], depth) for i, depth in rules.tree_order(parents)]
    return rows, [by_id[i] for i in rules.parent_candidates(None, parents)]


def parent_choices(places_: list[Place], place_id: int) -> list[Place]:
    by_id = {p.id: p for p in places_}
    return [by_id[i] for i in rules.parent_candidates(place_id, {p.id: p.parent_id for p in places_})]


_LABEL_ROWS = select(Place.id, Place.name, Place.parent_id).where(Place.campaign_id == bindparam("campaign_id"))


def labels(session: Session, campaign_id: int) -> rules.PlaceLabels:
    """Every place's label, from light rows of the three columns it needs (issue 17: pages
    label a few places, and full rows of every place cost more than the page)."""
    return place_labels(label_rows(session, campaign_id))


def label_rows(session: Session, campaign_id: int) -> list:
    """The rows `labels` reads: each place's id, name and parent."""
    return list(read_rows(session, _LABEL_ROWS, {"campaign_id": campaign_id}).all())


def place_labels(places_: list[Place]) -> rules.PlaceLabels:
    """'City › Docks', so places on different maps can be told apart (each when asked for)."""
    return rules.PlaceLabels(places_)


def can_have_map(places_: list[Place], place_id: int) -> bool:
    """R1.3: districts (the third level) get no map of their own."""
    return rules.depth_of(place_id, {p.id: p.parent_id for p in places_}) < rules.MAX_DEPTH


def _parents(session: Session, campaign_id: int) -> dict[int, int | None]:
    return dict(session.exec(select(Place.id, Place.parent_id).where(Place.campaign_id == campaign_id)).all())


def place_of(session: Session, campaign_id: int, place_id: int) -> Place:
    return campaign_row(session, Place, place_id, campaign_id)


def require_module(campaign: Campaign, module: str) -> None:
    """R9.6: with a module off, its actions are refused with a clear error."""
    terms.require_module(campaign, module)


def _check_parent(session: Session, campaign_id: int, place_id: int | None, parent_id: int | None) -> None:
    if parent_id is None:
        return
    parents = _parents(session, campaign_id)
    if parent_id not in parents:
        raise DomainError("place_parent_invalid")
    rules.check_parent(place_id, parent_id, parents)


def _open_map(session: Session, parent_id: int | None) -> None:
    if parent_id is not None:
        parent = session.get(Place, parent_id)
        parent.has_map = True
        session.add(parent)


def _check_entry(campaign: Campaign, place: Place, *, setting: bool) -> None:
    """The entry mark belongs to the paths module and to places on a place's map (R1.3)."""
    if setting:
        require_module(campaign, PATHS_MODULE)
    if place.entry and place.parent_id is None:
        raise DomainError("entry_needs_parent")


def create_place(session: Session, *, actor: User, campaign_id: int, data: dict) -> Place:
    viewer = gm_viewer(session, actor, campaign_id)
    _check_parent(session, campaign_id, None, data.get("parent_id"))
    fields = {k: v for k, v in data.items() if k in (*EDITABLE, "parent_id") and v is not None}
    if data.get("x") is None or data.get("y") is None:
        siblings = session.exec(
            select(Place.x, Place.y).where(Place.campaign_id == campaign_id, Place.parent_id == data.get("parent_id"))
        ).all()
        fields["x"], fields["y"] = rules.free_spot([(x, y) for x, y in siblings])
    place = Place(campaign_id=campaign_id, **fields)
    place.name = place.name.strip()
    _check_entry(viewer.campaign, place, setting=bool(data.get("entry")))
    session.add(place)
    _open_map(session, place.parent_id)
    session.flush()
    audit.record(session, viewer.campaign, actor, "place_added", f"place:{place.id}", after=audit.snapshot(place, AUDITED))
    return place


MAX_BULK = 200
BULK_ADDED = "bulk list"  # R12.9: how an audit row tells a place added with many others


@dataclass(frozen=True)
class Bulk:
    places: list[Place]
    crowded: list[str]  # the names of the new places the map had no room to keep apart


def create_places(session: Session, *, actor: User, campaign_id: int, items: list[dict]) -> Bulk:
    """R12.14: up to MAX_BULK places at once, all or none: each checked as create_place checks
    one (its parent, the maps' depth) and its name unused on its map, in the list or before.
    Every problem is a detail naming its item (0-based); the places are laid out apart on their
    maps (maps/layout.py), and the GM moves them after. Those a full map could not keep apart
    are named in `crowded`, for the GM to move. R12.9: one audit row a place, as create_place
    writes, marked as added from a list."""
    viewer = gm_viewer(session, actor, campaign_id)
    if not 1 <= len(items) <= MAX_BULK:
        raise DomainError("places_count", most=MAX_BULK)
    standing = session.exec(
        select(Place.parent_id, Place.name, Place.x, Place.y, Place.income).where(Place.campaign_id == campaign_id)
    ).all()
    _check_bulk(session, campaign_id, items, {(parent, name.strip().casefold()) for parent, name, *_rest in standing})
    spots: dict[int, layout.Spot] = {}
    for parent in dict.fromkeys(item.get("parent_id") for item in items):
        group = [i for i, item in enumerate(items) if item.get("parent_id") == parent]
        taken = [(x, y, rules.label_text(name, income)) for p, name, x, y, income in standing if p == parent]
        holder = session.get(Place, parent) if parent is not None else viewer.campaign
        labels = [rules.label_text(items[i]["name"].strip(), items[i].get("income") or 0) for i in group]
        spots.update(zip(group, layout.spread(labels, taken, map_height(holder))))
    made = []
    for i, item in enumerate(items):
        fields = {k: item[k] for k in ("description", "income", "hideout_slot") if item.get(k) is not None}
        place = Place(campaign_id=campaign_id, name=item["name"].strip(), parent_id=item.get("parent_id"), **fields)
        place.x, place.y = spots[i].x, spots[i].y
        session.add(place)
        made.append(place)
    for parent in {item.get("parent_id") for item in items} - {None}:
        _open_map(session, parent)
    session.flush()
    for place in made:
        after = {**audit.snapshot(place, AUDITED), "added_with": BULK_ADDED}
        audit.record(session, viewer.campaign, actor, "place_added", f"place:{place.id}", after=after)
    return Bulk(made, [made[i].name for i in sorted(spots) if not spots[i].apart])


def _check_bulk(session: Session, campaign_id: int, items: list[dict], names: set[tuple[int | None, str]]) -> None:
    """Every item's parent and name checked; all the problems refused at once."""
    parents = _parents(session, campaign_id)
    problems, seen = [], set()
    for i, item in enumerate(items):
        name, parent = item["name"].strip(), item.get("parent_id")
        key = (parent, name.casefold())
        if parent is not None:
            try:
                if parent not in parents:
                    raise DomainError("place_parent_invalid")
                rules.check_parent(None, parent, parents)
            except DomainError as exc:
                problems.append({"code": exc.code, "item": i, "field": f"places.{i}.parent_id", **exc.params})
                continue
        if key in seen or key in names:
            code = "place_name_repeated" if key in seen else "place_name_taken"
            problems.append({"code": code, "item": i, "field": f"places.{i}.name", "name": name})
        seen.add(key)
    if problems:
        raise DomainError("places_refused", details=problems)


def map_height(holder: Campaign | Place) -> int:
    """A map's height in SVG units: 1000 wide, with its image's proportions (700 without one)."""
    if holder.map_image:
        return round(1000 * (holder.map_height or 700) / (holder.map_width or 1000))
    return 700


def update_place(session: Session, *, actor: User, campaign_id: int, place_id: int, changes: dict) -> Place:
    viewer = gm_viewer(session, actor, campaign_id)
    place = place_of(session, campaign_id, place_id)
    before = audit.snapshot(place, AUDITED)
    if "parent_id" in changes and changes["parent_id"] != place.parent_id:
        _check_parent(session, campaign_id, place.id, changes["parent_id"])
        place.parent_id = changes["parent_id"]
        _open_map(session, place.parent_id)
        if place.parent_id is None and not changes.get("entry"):
            place.entry = False
    for key in EDITABLE:
        if changes.get(key) is not None:
            setattr(place, key, changes[key].strip() if key == "name" else changes[key])
    if changes.get("has_map") is not None and changes["has_map"] != place.has_map:
        _set_has_map(session, campaign_id, place, changes["has_map"])
    _check_entry(viewer.campaign, place, setting=bool(changes.get("entry")))
    session.add(place)
    if (after := audit.snapshot(place, AUDITED)) != before:
        audit.record(session, viewer.campaign, actor, "place_edited", f"place:{place.id}", before=before, after=after)
    return place


def _set_has_map(session: Session, campaign_id: int, place: Place, has_map: bool) -> None:
    """R1.3: a place gets its own map unless it is already a district (third level)."""
    parents = _parents(session, campaign_id)
    if has_map and rules.depth_of(place.id, parents) >= rules.MAX_DEPTH:
        raise DomainError("map_too_deep")
    if not has_map and any(parent == place.id for parent in parents.values()):
        raise DomainError("map_has_places", place=place.name)
    place.has_map = has_map


# Higher domains (battles, events, movement, orders) say why a place may not go (a port, wired
# in app/wiring.py, the refusal that says most first): each guard gets the place's whole
# subtree and raises a DomainError.
PlaceDeleteGuard = Callable[[Session, Campaign, dict[int, Place]], None]
place_delete_guards = Port[PlaceDeleteGuard]("place deletion guards")


def delete_place(session: Session, *, actor: User, campaign_id: int, place_id: int) -> None:
    """Never a silent cascade: a place goes only when neither it nor any place on its maps
    holds an owner, a hideout, an active event, an order or a battle."""
    viewer = gm_viewer(session, actor, campaign_id)
    place = place_of(session, campaign_id, place_id)
    everything = places(session, campaign_id)
    ids = rules.subtree(place.id, {p.id: p.parent_id for p in everything})
    inside = {p.id: p for p in everything if p.id in ids}
    hideouts = hideout_place_ids(session, campaign_id) & ids
    for p in sorted(inside.values(), key=lambda p: p.id):
        if p.owner_player_id is not None or p.id in hideouts:
            raise DomainError("place_owned", place=p.name)
    for guard in place_delete_guards():
        guard(session, viewer.campaign, inside)
    audit.record(session, viewer.campaign, actor, "place_deleted", f"place:{place.id}", before=audit.snapshot(place, AUDITED))
    session.delete(place)


# --- map images ---------------------------------------------------------------------


def set_map_image(
    session: Session, *, actor: User, campaign_id: int, place_id: int | None, data: bytes, media_dir: FsPath
) -> Campaign | Place:
    """The top map (place_id None) or a place's own map (which the place then has)."""
    viewer = gm_viewer(session, actor, campaign_id)
    target: Campaign | Place = viewer.campaign
    if place_id is not None:
        target = place_of(session, campaign_id, place_id)
        if not target.has_map:
            _set_has_map(session, campaign_id, target, True)
    stored = store_image(data, media_dir)
    target.map_image, target.map_original = stored.web, stored.original
    target.map_width, target.map_height = stored.width, stored.height
    session.add(target)
    return target


# --- paths (R9.7) -------------------------------------------------------------------


_PATHS = select(Path).where(Path.campaign_id == bindparam("campaign_id")).order_by(Path.id)
_ENTRIES = select(Place.id, Place.parent_id).where(  # a place-map point and its parent place (R9.7)
    Place.campaign_id == bindparam("campaign_id"), Place.entry.is_(True), Place.parent_id.is_not(None)
)


def paths(session: Session, campaign_id: int) -> list[Path]:
    return list(session.exec(_PATHS, params={"campaign_id": campaign_id}).all())


def create_path(session: Session, *, actor: User, campaign_id: int, from_id: int, to_id: int, one_way: bool) -> Path:
    viewer = gm_viewer(session, actor, campaign_id)
    require_module(viewer.campaign, PATHS_MODULE)
    a, b = place_of(session, campaign_id, from_id), place_of(session, campaign_id, to_id)
    existing = {
        frozenset((p.from_place_id, p.to_place_id))
        for p in session.exec(
            select(Path).where(or_(Path.from_place_id.in_((a.id, b.id)), Path.to_place_id.in_((a.id, b.id))))
        ).all()
    }
    rules.check_path(a.parent_id, b.parent_id, a.id, b.id, existing)
    path = Path(campaign_id=campaign_id, from_place_id=a.id, to_place_id=b.id, one_way=one_way)
    session.add(path)
    session.flush()
    return path


def _path(session: Session, campaign_id: int, path_id: int) -> Path:
    return campaign_row(session, Path, path_id, campaign_id)


def update_path(
    session: Session, *, actor: User, campaign_id: int, path_id: int, one_way: bool | None = None, reverse: bool = False
) -> Path:
    viewer = gm_viewer(session, actor, campaign_id)
    require_module(viewer.campaign, PATHS_MODULE)
    path = _path(session, campaign_id, path_id)
    if one_way is not None:
        path.one_way = one_way
    if reverse:
        path.from_place_id, path.to_place_id = path.to_place_id, path.from_place_id
    session.add(path)
    return path


def delete_path(session: Session, *, actor: User, campaign_id: int, path_id: int) -> None:
    viewer = gm_viewer(session, actor, campaign_id)
    require_module(viewer.campaign, PATHS_MODULE)
    session.delete(_path(session, campaign_id, path_id))


# Built once (issue 37: built on each visit of the wizard's Map step).
_PATH_COUNT = select(func.count()).select_from(Path).where(Path.campaign_id == bindparam("campaign_id"))


def tally(places_: list[Place], session: Session, campaign_id: int) -> dict[str, int]:
    """The wizard's Map step at a glance: how many places, ⚑ places and paths there are."""
    count = session.exec(_PATH_COUNT, params={"campaign_id": campaign_id}).one()
    return {"places": len(places_), "flags": sum(p.hideout_slot for p in places_), "paths": count}


def places_without_paths(session: Session, viewer: Viewer, places_: list[AnyPlace]) -> list[AnyPlace]:
    """With the paths module on: hideout places (⚑) and players' places that join no path,
    so that the GM (only the GM) is warned before nobody can reach an event (R9.7)."""
    campaign = viewer.campaign
    if not viewer.is_gm or not campaign.modules.get(PATHS_MODULE):
        return []
    candidates = [p for p in places_ if p.hideout_slot or p.owner_player_id is not None]
    if not candidates:
        return []
    lonely = set(rules.pathless([p.id for p in candidates], path_graph(session, campaign.id)))
    return [p for p in candidates if p.id in lonely]


def path_graph(session: Session, campaign_id: int) -> dict[int, set[int]]:
    """The one-step graph of R9.7 for the whole campaign (orders use it)."""
    edges = [(p.from_place_id, p.to_place_id, p.one_way) for p in paths(session, campaign_id)]
    entries = list(session.exec(_ENTRIES, params={"campaign_id": campaign_id}).all())
    return rules.path_graph(edges, entries)
