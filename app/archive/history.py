"""R12.6, the map through time: End round keeps each place's owner and hideout as the round
was played (rounds/steps.py names when), and a past round's map is the map drawn with them.

Owners and hideouts are public (R9.8), and they change only at End round, so the state kept
when round N ends is the state when round N began. A past map shows nothing else that could
have been secret then: no warbands and no events, only places, paths, owners and hideouts."""

from __future__ import annotations

import json
from types import SimpleNamespace

from sqlalchemy import bindparam
from sqlmodel import Session, delete, select

from app.archive.models import PlaceRound
from app.campaigns.models import Campaign
from app.core.errors import DomainError
from app.maps.models import Hideout, Place
from app.maps.reading import MapView


def keep_round(session: Session, campaign: Campaign) -> None:
    """Before End round's captures: every place's owner and hideout in the round that ends
    (written again if the step runs again, so a round has one state)."""
    session.exec(delete(PlaceRound).where(PlaceRound.campaign_id == campaign.id, PlaceRound.round == campaign.round))
    holders = dict(session.exec(select(Hideout.place_id, Hideout.player_id).where(Hideout.campaign_id == campaign.id)).all())
    rows = session.exec(select(Place.id, Place.owner_player_id).where(Place.campaign_id == campaign.id).order_by(Place.id)).all()
    session.add_all(
        PlaceRound(
            campaign_id=campaign.id, round=campaign.round, place_id=pid, owner_player_id=owner, hideout_player_id=holders.get(pid)
        )
        for pid, owner in rows
    )
    session.flush()


# Every kept round's rows, or one round's, each built once (issue 37: the season book built it
# on each visit).
_KEPT = select(PlaceRound.round, PlaceRound.place_id, PlaceRound.owner_player_id, PlaceRound.hideout_player_id).where(
    PlaceRound.campaign_id == bindparam("campaign_id")
)
_KEPT_ROWS = {
    one: (_KEPT.where(PlaceRound.round == bindparam("round")) if one else _KEPT).order_by(PlaceRound.round, PlaceRound.place_id)
    for one in (False, True)
}


def kept(session: Session, campaign_id: int, round_: int | None = None) -> dict[int, dict[int, tuple[int | None, int | None]]]:
    """Round -> place id -> (owner, hideout holder), for every kept round (or one)."""
    params = {"campaign_id": campaign_id, "round": round_}
    result: dict[int, dict[int, tuple[int | None, int | None]]] = {}
    for r, pid, owner, holder in session.exec(_KEPT_ROWS[round_ is not None], params=params).all():
        result.setdefault(r, {})[pid] = (owner, holder)
    return result


def check_round(campaign: Campaign, round_: int, known: set[int]) -> bool:
    """Whether `round_` is a past round with a kept map (True) or the current one (False);
    a round that has not been played, or whose map was never kept, is not found."""
    if campaign.round >= 1 and round_ == campaign.round and campaign.status in ("running", "finished"):
        return False
    if round_ in known and round_ < campaign.round:
        return True
    raise DomainError("not_found")


def as_of(session: Session, view: MapView, round_: int | None) -> MapView:
    """The map `view` as round `round_` was played (None or the current round: as it is)."""
    if round_ is None:
        return view
    states = kept(session, view.campaign.id, round_)
    if not check_round(view.campaign, round_, set(states)):
        return view
    state = states[round_]
    places = []
    for p in view.places:
        if p.id in state:  # a place added since was not on the map then
            places.append(SimpleNamespace(**{**p._asdict(), "owner_player_id": state[p.id][0]}))
    shown = {p.id for p in places}
    view.places = places
    view.paths = [w for w in view.paths if w.from_place_id in shown and w.to_place_id in shown]
    view.hideouts = {pid for pid, (_owner, holder) in state.items() if holder is not None and pid in shown}
    view.events = {}
    return view


def marker_state(view: MapView, owner: int | None, hideout: bool, place) -> tuple[str, str]:
    """A marker's classes and icon, as maps/view.py draws them (the time-lapse swaps these)."""
    named = view.owners.get(owner) if owner else None
    classes = ["pl", f"o{named[1]}" if named else "u"]
    if place.has_map:
        classes.append("m")
    if place.entry:
        classes.append("e")
    icon = "⌂" if hideout else ("⚑" if place.hideout_slot and named is None else ("⇧" if place.entry else ""))
    return " ".join(classes), icon


def timeline(session: Session, view: MapView) -> str:
    """The map page's time-lapse: JSON of round -> place id -> [classes, icon, owner's name]
    for every kept round of the places on this map ("" when there is no past round; one
    statement, drawn with the map and kept with its drawing)."""
    campaign = view.campaign
    if campaign.round < 2 or campaign.status not in ("running", "finished"):
        return ""
    rounds = {}
    for r, state in kept(session, campaign.id).items():
        if r >= campaign.round:
            continue
        marks = {}
        for p in view.places:
            if p.id in state:
                owner, holder = state[p.id]
                css, icon = marker_state(view, owner, holder is not None, p)
                named = view.owners.get(owner) if owner else None
                marks[p.id] = [css, icon, named[0] if named else ""]
        rounds[r] = marks
    if not rounds:
        return ""
    return json.dumps({"current": campaign.round, "rounds": rounds}, ensure_ascii=False, separators=(",", ":"))
