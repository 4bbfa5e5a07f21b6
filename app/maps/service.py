"""Place, map and path use cases. The wizard's place list, the visual map editor and the
API share these."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path as FsPath

from sqlalchemy import or_
from sqlmodel import Session, select

from app.accounts.models import User
from app.campaigns.models import Campaign, Player
from app.campaigns import terms
from app.core.errors import DomainError
from app.core.images import MAX_BYTES, store_image
from app.maps import rules
from app.maps.models import Hideout, Path, Place
from app.visibility import Viewer, campaign_row, gm_viewer

EDITABLE = ("name", "description", "income", "hideout_slot", "x", "y", "entry")
PATHS_MODULE = "paths"
MAX_UPLOAD = MAX_BYTES


def places(session: Session, campaign_id: int) -> list[Place]:
    return list(session.exec(select(Place).where(Place.campaign_id == campaign_id).order_by(Place.id)).all())


def hideout_place_ids(session: Session, campaign_id: int) -> set[int]:
    return set(session.exec(select(Hideout.place_id).where(Hideout.campaign_id == campaign_id)).all())


def editor_rows(places_: list[Place]) -> tuple[list[tuple[Place, int]], list[Place]]:
    """The place list in map order with levels, and where a new place may be put."""
    by_id = {p.id: p for p in places_}
    parents = {p.id: p.parent_id for p in places_}
    rows = [(by_id[i], depth) for i, depth in rules.tree_order(parents)]
    return rows, [by_id[i] for i in rules.parent_candidates(None, parents)]


def parent_choices(places_: list[Place], place_id: int) -> list[Place]:
    by_id = {p.id: p for p in places_}
    return [by_id[i] for i in rules.parent_candidates(place_id, {p.id: p.parent_id for p in places_})]


def labels(session: Session, campaign_id: int) -> dict[int, str]:
    """Every place's label, from light rows of the three columns it needs (issue 17: pages
    label a few places, and full rows of every place cost more than the page)."""
    return place_labels(list(session.exec(select(Place.id, Place.name, Place.parent_id).where(Place.campaign_id == campaign_id)).all()))


def place_labels(places_: list[Place]) -> dict[int, str]:
    """'City › Docks', so places on different maps can be told apart."""
    by_id = {p.id: p for p in places_}
    labels = {}
    for p in places_:
        names, node = [], p
        while node is not None:
            names.insert(0, node.name)
            node = by_id.get(node.parent_id) if node.parent_id else None
        labels[p.id] = " › ".join(names)
    return labels


def can_have_map(places_: list[Place], place_id: int) -> bool:
    """R1.3: districts (the third level) get no map of their own."""
    return rules.depth_of(place_id, {p.id: p.parent_id for p in places_}) < rules.MAX_DEPTH


def _parents(session: Session, campaign_id: int) -> dict[int, int | None]:
    return dict(session.exec(select(Place.id, Place.parent_id).where(Place.campaign_id == campaign_id)).all())


def _place(session: Session, campaign_id: int, place_id: int) -> Place:
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
        siblings = session.exec(select(Place.x, Place.y).where(Place.campaign_id == campaign_id, Place.parent_id == data.get("parent_id"))).all()
        fields["x"], fields["y"] = rules.free_spot([(x, y) for x, y in siblings])
    place = Place(campaign_id=campaign_id, **fields)
    place.name = place.name.strip()
    _check_entry(viewer.campaign, place, setting=bool(data.get("entry")))
    session.add(place)
    _open_map(session, place.parent_id)
    session.flush()
    return place


def update_place(session: Session, *, actor: User, campaign_id: int, place_id: int, changes: dict) -> Place:
    viewer = gm_viewer(session, actor, campaign_id)
    place = _place(session, campaign_id, place_id)
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
    return place


def _set_has_map(session: Session, campaign_id: int, place: Place, has_map: bool) -> None:
    """R1.3: a place gets its own map unless it is already a district (third level)."""
    parents = _parents(session, campaign_id)
    if has_map and rules.depth_of(place.id, parents) >= rules.MAX_DEPTH:
        raise DomainError("map_too_deep")
    if not has_map and any(parent == place.id for parent in parents.values()):
        raise DomainError("map_has_places", place=place.name)
    place.has_map = has_map


# Higher domains (events, orders, battles) say why a place may not go; each guard gets the
# place's whole subtree and raises a DomainError. Registered at their import, so that maps
# never imports them.
DELETE_GUARDS: list[Callable[[Session, Campaign, dict[int, Place]], None]] = []


def add_delete_guard(guard: Callable[[Session, Campaign, dict[int, Place]], None], *, first: bool = False) -> None:
    """`first`: a guard whose refusal says more (battles before the orders they came from)."""
    if guard not in DELETE_GUARDS:
        DELETE_GUARDS.insert(0, guard) if first else DELETE_GUARDS.append(guard)


def delete_place(session: Session, *, actor: User, campaign_id: int, place_id: int) -> None:
    """Never a silent cascade: a place goes only when neither it nor any place on its maps
    holds an owner, a hideout, an active event, an order or a battle."""
    viewer = gm_viewer(session, actor, campaign_id)
    place = _place(session, campaign_id, place_id)
    everything = places(session, campaign_id)
    ids = rules.subtree(place.id, {p.id: p.parent_id for p in everything})
    inside = {p.id: p for p in everything if p.id in ids}
    hideouts = hideout_place_ids(session, campaign_id) & ids
    for p in sorted(inside.values(), key=lambda p: p.id):
        if p.owner_player_id is not None or p.id in hideouts:
            raise DomainError("place_owned", place=p.name)
    for guard in DELETE_GUARDS:
        guard(session, viewer.campaign, inside)
    session.delete(place)


# --- map images ---------------------------------------------------------------------


def set_map_image(
    session: Session, *, actor: User, campaign_id: int, place_id: int | None, data: bytes, media_dir: FsPath
) -> Campaign | Place:
    """The top map (place_id None) or a place's own map (which the place then has)."""
    viewer = gm_viewer(session, actor, campaign_id)
    target: Campaign | Place = viewer.campaign
    if place_id is not None:
        target = _place(session, campaign_id, place_id)
        if not target.has_map:
            _set_has_map(session, campaign_id, target, True)
    stored = store_image(data, media_dir)
    target.map_image, target.map_original = stored.web, stored.original
    target.map_width, target.map_height = stored.width, stored.height
    session.add(target)
    return target


# --- paths (R9.7) -------------------------------------------------------------------


def paths(session: Session, campaign_id: int) -> list[Path]:
    return list(session.exec(select(Path).where(Path.campaign_id == campaign_id).order_by(Path.id)).all())


def create_path(session: Session, *, actor: User, campaign_id: int, from_id: int, to_id: int, one_way: bool) -> Path:
    viewer = gm_viewer(session, actor, campaign_id)
    require_module(viewer.campaign, PATHS_MODULE)
    a, b = _place(session, campaign_id, from_id), _place(session, campaign_id, to_id)
    existing = {
        frozenset((p.from_place_id, p.to_place_id))
        for p in session.exec(
            select(Path).where(
                or_(Path.from_place_id.in_((a.id, b.id)), Path.to_place_id.in_((a.id, b.id)))
            )
        ).all()
    }
    rules.check_path(a.parent_id, b.parent_id, a.id, b.id, existing)
    path = Path(campaign_id=campaign_id, from_place_id=a.id, to_place_id=b.id, one_way=one_way)
    session.add(path)
    session.flush()
    return path


def _path(session: Session, campaign_id: int, path_id: int) -> Path:
    return campaign_row(session, Path, path_id, campaign_id)


def update_path(session: Session, *, actor: User, campaign_id: int, path_id: int,
                one_way: bool | None = None, reverse: bool = False) -> Path:
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


def places_without_paths(session: Session, viewer: Viewer, places_: list[Place]) -> list[Place]:
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
    entries = list(
        session.exec(
            select(Place.id, Place.parent_id).where(
                Place.campaign_id == campaign_id, Place.entry.is_(True), Place.parent_id.is_not(None)
            )
        ).all()
    )
    return rules.path_graph(edges, entries)


# --- the map view -------------------------------------------------------------------


@dataclass
class MapView:
    campaign: Campaign
    place: Place | None  # None for the top map
    breadcrumbs: list[Place]
    places: list  # rows of PLACE_COLUMNS
    paths: list  # rows of id, from_place_id, to_place_id, one_way
    owners: dict[int, tuple[str, int]] = field(default_factory=dict)  # player id -> (nickname, colour)
    hideouts: set[int] = field(default_factory=set)
    events: dict[int, list] = field(default_factory=dict)  # place id -> its active events

    @property
    def image(self) -> tuple[str, int, int] | None:
        holder = self.place or self.campaign
        if holder.map_image:
            return holder.map_image, holder.map_width or 1000, holder.map_height or 700
        return None

    @property
    def height(self) -> int:
        """SVG units: the map is 1000 wide and keeps its image's proportions."""
        image = self.image
        return round(1000 * image[2] / image[1]) if image else 700


PLACE_COLUMNS = (Place.id, Place.name, Place.description, Place.income, Place.hideout_slot, Place.x, Place.y, Place.parent_id,
                 Place.has_map, Place.entry, Place.owner_player_id)


def map_frame(session: Session, viewer: Viewer, of: int | None) -> MapView:
    """The map's own place and its breadcrumbs, without what stands on it (a cached drawing
    needs only these)."""
    campaign = viewer.campaign
    place = None
    crumbs: list[Place] = []
    if of is not None:
        place = _place(session, campaign.id, of)
        if not place.has_map:
            raise DomainError("not_found")
        node: Place | None = place
        while node is not None:
            crumbs.insert(0, node)
            node = session.get(Place, node.parent_id) if node.parent_id else None
    return MapView(campaign=campaign, place=place, breadcrumbs=crumbs, places=[], paths=[])


def map_view(session: Session, viewer: Viewer, of: int | None, events: dict[int, list] | None = None) -> MapView:
    """Everything one map shows, in a fixed number of statements; `events` (place id -> its
    active events) comes from the events domain, which maps does not import."""
    view = map_frame(session, viewer, of)
    campaign = viewer.campaign
    # Light rows of the columns drawn (issue 17: hundreds of ORM objects cost more than the page).
    on_map = list(
        session.exec(
            select(*PLACE_COLUMNS).where(Place.campaign_id == campaign.id, Place.parent_id == of if of else Place.parent_id.is_(None))
            .order_by(Place.id)
        ).all()
    )
    map_paths = list(session.exec(
        select(Path.id, Path.from_place_id, Path.to_place_id, Path.one_way).join(Place, Place.id == Path.from_place_id)
        .where(Path.campaign_id == campaign.id, Place.parent_id == of if of else Place.parent_id.is_(None)).order_by(Path.id)
    ).all()) if on_map else []
    ids = [p.id for p in on_map]
    players = session.exec(
        select(Player.id, User.nickname).join(User, User.id == Player.user_id).where(Player.campaign_id == campaign.id).order_by(Player.id)
    ).all()
    view.owners = {pid: (nick, i % 12) for i, (pid, nick) in enumerate(players)}
    view.hideouts = set(
        session.exec(select(Hideout.place_id).join(Place, Place.id == Hideout.place_id)
                     .where(Hideout.campaign_id == campaign.id, Place.parent_id == of if of else Place.parent_id.is_(None))).all()
    ) if ids else set()
    view.places, view.paths, view.events = on_map, map_paths, events or {}
    return view
