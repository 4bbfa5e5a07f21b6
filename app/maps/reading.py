"""The map as a viewer sees it (R2, R9.7): the frame (which map, its image and size) and the
places on it with owners, hideouts and paths — read by the map page, the API, the club screen
and the map through time. Split from app/maps/service.py, whose use cases change the map."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import bindparam
from sqlmodel import Session, select

from app.campaigns import service as campaigns
from app.campaigns.models import Campaign
from app.core.db import read_rows
from app.core.errors import DomainError
from app.maps import rules
from app.maps.models import Hideout, Path, Place
from app.maps.service import PlaceRow, label_rows, map_height, place_labels, place_of
from app.versions.remembered import remembered
from app.visibility import Viewer


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
        return map_height(self.place or self.campaign)


PLACE_COLUMNS = (
    Place.id,
    Place.name,
    Place.description,
    Place.income,
    Place.hideout_slot,
    Place.x,
    Place.y,
    Place.parent_id,
    Place.has_map,
    Place.entry,
    Place.owner_player_id,
)


def map_frame(session: Session, viewer: Viewer, of: int | None) -> MapView:
    """The map's own place and its breadcrumbs, without what stands on it (a cached drawing
    needs only these)."""
    campaign = viewer.campaign
    place = None
    crumbs: list[Place] = []
    if of is not None:
        place = place_of(session, campaign.id, of)
        if not place.has_map:
            raise DomainError("not_found")
        node: Place | None = place
        while node is not None and node not in crumbs and len(crumbs) < rules.MAX_DEPTH:  # bounded whatever the rows say
            crumbs.insert(0, node)
            node = session.get(Place, node.parent_id) if node.parent_id else None
    return MapView(campaign=campaign, place=place, breadcrumbs=crumbs, places=[], paths=[])


def _on_map(nested: bool):
    """The places drawn on a map: a place's own (`of`), or the campaign's top map."""
    return Place.parent_id == bindparam("of") if nested else Place.parent_id.is_(None)


# A map's reads, built once for a place's map and for the top map (issue 37: built on each
# call, they cost an API map read more than running them).
_MAP_PLACES = {
    nested: select(*PLACE_COLUMNS).where(Place.campaign_id == bindparam("campaign_id"), _on_map(nested)).order_by(Place.id)
    for nested in (False, True)
}
_MAP_PATHS = {
    nested: select(Path.id, Path.from_place_id, Path.to_place_id, Path.one_way)
    .join(Place, Place.id == Path.from_place_id)
    .where(Path.campaign_id == bindparam("campaign_id"), _on_map(nested))
    .order_by(Path.id)
    for nested in (False, True)
}
_MAP_HIDEOUTS = {
    nested: select(Hideout.place_id)
    .join(Place, Place.id == Hideout.place_id)
    .where(Hideout.campaign_id == bindparam("campaign_id"), _on_map(nested))
    for nested in (False, True)
}


def map_view(session: Session, viewer: Viewer, of: int | None, events: dict[int, list] | None = None) -> MapView:
    """Everything one map shows, in a fixed number of statements; `events` (place id -> its
    active events) comes from the events domain, which maps does not import."""
    view = map_frame(session, viewer, of)
    nested, params = bool(of), {"campaign_id": viewer.campaign.id, "of": of}
    # Light rows of the columns drawn (issue 17: hundreds of ORM objects cost more than the page).
    on_map = list(session.exec(_MAP_PLACES[nested], params=params).all())
    map_paths = list(session.exec(_MAP_PATHS[nested], params=params).all()) if on_map else []
    players = campaigns.nicknames(session, viewer.campaign.id)
    view.owners = {pid: (nick, i % 12) for i, (pid, nick) in enumerate(players.items())}
    view.hideouts = set(session.exec(_MAP_HIDEOUTS[nested], params=params).all()) if on_map else set()
    view.places, view.paths, view.events = on_map, map_paths, events or {}
    return view


def hideout_holders(session: Session, campaign_id: int) -> dict[int, int]:
    """Place id -> the player whose hideout it is (public, R9.8), in one statement."""
    return dict(session.exec(select(Hideout.place_id, Hideout.player_id).where(Hideout.campaign_id == campaign_id)).all())


# Each place with the hideout it holds, if any (one at most: the hideout's place is unique).
_PLACES_AND_HIDEOUTS = (
    select(Place.id, Place.name, Place.income, Place.hideout_slot, Place.owner_player_id, Hideout.player_id, Hideout.id)
    .outerjoin(Hideout, Hideout.place_id == Place.id)  # type: ignore[arg-type]
    .where(Place.campaign_id == bindparam("campaign_id"))
    .order_by(Place.id)
)


def roster_and_places(
    session: Session, campaign_id: int, viewer: Viewer | None = None
) -> tuple[list[campaigns.PlayerRow], list[PlaceRow]]:
    """`campaigns.players` and `place_rows` in two statements instead of three: the places'
    rows already say who owns each, and the hideouts come with them (issue 37: a statement is
    a quarter of a millisecond of a page on PostgreSQL). Hideouts in the order made, owned
    places in the places' order, as `players` gives them."""
    by_id = campaigns.roster(session, campaign_id, viewer)
    places, hideouts = [], []
    for place_id, name, income, slot, owner, holder, made in read_rows(
        session, _PLACES_AND_HIDEOUTS, {"campaign_id": campaign_id}
    ).all():
        places.append(PlaceRow(place_id, name, income, slot, owner))
        if owner in by_id:
            by_id[owner].places.append(place_id)
        if holder is not None:
            hideouts.append((made, holder, place_id))
    for _made, holder, place_id in sorted(hideouts):
        if holder in by_id:
            by_id[holder].hideouts.append(place_id)
    return list(by_id.values()), places


def roster_and_places_seen(session: Session, viewer: Viewer) -> tuple[list[campaigns.PlayerRow], list[PlaceRow]]:
    """`roster_and_places` (no balances) for a page: the same for every member, remembered
    while nothing every member sees has changed (app/versions/remembered.py). Lists of their
    own, of shared rows."""
    players, places = remembered(
        session, viewer, "roster_and_places", None, lambda: roster_and_places(session, viewer.campaign_id), public=True
    )
    return list(players), list(places)


def labels_seen(session: Session, viewer: Viewer) -> rules.PlaceLabels:
    """`labels` for a page: its rows the same for every member, remembered while nothing every
    member sees has changed (app/versions/remembered.py)."""
    rows = remembered(session, viewer, "place_labels", None, lambda: label_rows(session, viewer.campaign_id), public=True)
    return place_labels(rows)
