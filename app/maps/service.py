"""Place use cases. The wizard's place list and (later) the map editor share these."""
from __future__ import annotations

from sqlmodel import Session, select

from app.accounts.models import User
from app.core.errors import DomainError
from app.maps import rules
from app.maps.models import Hideout, Place
from app.visibility import Viewer, require_gm, require_writable, viewer_for

EDITABLE = ("name", "description", "income", "hideout_slot", "x", "y", "entry")


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


def _parents(session: Session, campaign_id: int) -> dict[int, int | None]:
    return dict(session.exec(select(Place.id, Place.parent_id).where(Place.campaign_id == campaign_id)).all())


def _gm_viewer(session: Session, actor: User, campaign_id: int) -> Viewer:
    viewer = viewer_for(session, actor, campaign_id, lock=True)
    require_gm(viewer)
    require_writable(viewer)
    return viewer


def _place(session: Session, campaign_id: int, place_id: int) -> Place:
    place = session.get(Place, place_id)
    if place is None or place.campaign_id != campaign_id:
        raise DomainError("not_found")
    return place


def _check_parent(session: Session, campaign_id: int, place_id: int | None, parent_id: int | None) -> None:
    if parent_id is None:
        return
    parents = _parents(session, campaign_id)
    if parent_id not in parents:
        raise DomainError("place_parent_invalid")
    rules.check_parent(place_id, parent_id, parents)


def create_place(session: Session, *, actor: User, campaign_id: int, data: dict) -> Place:
    _gm_viewer(session, actor, campaign_id)
    _check_parent(session, campaign_id, None, data.get("parent_id"))
    place = Place(campaign_id=campaign_id, **{k: v for k, v in data.items() if k in (*EDITABLE, "parent_id")})
    place.name = place.name.strip()
    session.add(place)
    if place.parent_id is not None:
        parent = session.get(Place, place.parent_id)
        parent.has_map = True
        session.add(parent)
    session.flush()
    return place


def update_place(session: Session, *, actor: User, campaign_id: int, place_id: int, changes: dict) -> Place:
    _gm_viewer(session, actor, campaign_id)
    place = _place(session, campaign_id, place_id)
    if "parent_id" in changes and changes["parent_id"] != place.parent_id:
        _check_parent(session, campaign_id, place.id, changes["parent_id"])
        place.parent_id = changes["parent_id"]
        if place.parent_id is not None:
            parent = session.get(Place, place.parent_id)
            parent.has_map = True
            session.add(parent)
    for key in EDITABLE:
        if changes.get(key) is not None:
            setattr(place, key, changes[key].strip() if key == "name" else changes[key])
    session.add(place)
    return place


def delete_place(session: Session, *, actor: User, campaign_id: int, place_id: int) -> None:
    viewer = _gm_viewer(session, actor, campaign_id)
    place = _place(session, campaign_id, place_id)
    if place.owner_player_id is not None and viewer.campaign.status != "setup":
        raise DomainError("place_owned", place=place.name)
    session.delete(place)
