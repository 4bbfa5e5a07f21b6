"""Battle pages: the round's battles (mine first), one battle with rosters and its result."""
from __future__ import annotations

from fastapi import APIRouter, Query, Request

from app.accounts.deps import PageLogin, SessionDep
from app.battles import service
from app.campaigns import service as campaigns
from app.catalog.deps import CatalogDep
from app.core.errors import DomainError
from app.core.forms import Form, int_field, refusal, see_other
from app.core.templating import render
from app.events.models import Event
from app.maps import service as maps
from app.visibility import viewer_for

router = APIRouter()


def _names(session, cid) -> dict[int, str]:
    return {p.player_id: p.nickname for p in campaigns.players(session, cid)}


@router.get("/campaigns/{cid}/battles")
def battles(cid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep,
            round: int | None = Query(None, ge=0)):
    viewer = viewer_for(session, user, cid)
    views = service.battles_of(session, viewer.campaign, round)
    me = viewer.player.id if viewer.player else None
    views.sort(key=lambda v: (me not in v.participants, v.battle.id))
    shown_round = viewer.campaign.round if round is None else round
    return render(request, "battles/battles.html", viewer=viewer, campaign=viewer.campaign, views=views, me=me,
                  names=_names(session, cid), labels=maps.place_labels(maps.places(session, cid)), catalog=catalog,
                  shown_round=shown_round, tab="battles")


def _battle_page(request, session, user, cid, bid, catalog, status_code=200, **extra):
    viewer, view = service.battle(session, actor=user, campaign_id=cid, battle_id=bid)
    me = viewer.player.id if viewer.player else None
    event = session.get(Event, view.battle.event_id) if view.battle.event_id else None
    return render(request, "battles/battle.html", status_code=status_code, viewer=viewer, campaign=viewer.campaign, view=view,
                  me=me, names=_names(session, cid), labels=maps.place_labels(maps.places(session, cid)), catalog=catalog,
                  event=event, beacon=service.beacon_hint(view.battle), tab="battles", **extra)


@router.get("/campaigns/{cid}/battles/{bid}")
def battle(cid: int, bid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep):
    return _battle_page(request, session, user, cid, bid, catalog)


def _winners(form) -> list[int]:
    if form.get("draw"):
        return []
    values = form.getlist("winner") or ([form.get("winner_one")] if form.get("winner_one") else [])
    return [w for w in (int_field(v) for v in values) if w is not None]


def _act(request, session, user, cid, bid, catalog, action):
    try:
        action()
    except DomainError as exc:
        return _battle_page(request, session, user, cid, bid, catalog, status_code=exc.status, error=refusal(request, session, exc))
    return see_other(f"/campaigns/{cid}/battles/{bid}")


@router.post("/campaigns/{cid}/battles/{bid}/result")
def report(cid: int, bid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    return _act(request, session, user, cid, bid, catalog,
                lambda: service.report(session, actor=user, campaign_id=cid, battle_id=bid, winners=_winners(form)))


@router.post("/campaigns/{cid}/battles/{bid}/confirm")
def confirm(cid: int, bid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep):
    return _act(request, session, user, cid, bid, catalog, lambda: service.confirm(session, actor=user, campaign_id=cid, battle_id=bid))


@router.post("/campaigns/{cid}/battles/{bid}/dispute")
def dispute(cid: int, bid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    return _act(request, session, user, cid, bid, catalog, lambda: service.dispute(
        session, actor=user, campaign_id=cid, battle_id=bid, reason=str(form.get("reason", ""))))


@router.post("/campaigns/{cid}/battles/{bid}/resolve")
def resolve(cid: int, bid: int, request: Request, user: PageLogin, session: SessionDep, catalog: CatalogDep, form: Form):
    return _act(request, session, user, cid, bid, catalog,
                lambda: service.resolve(session, actor=user, campaign_id=cid, battle_id=bid, winners=_winners(form)))
