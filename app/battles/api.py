from __future__ import annotations

from fastapi import APIRouter, File, Request, UploadFile
from fastapi.responses import FileResponse

from app.accounts.deps import ApiUser, SessionDep
from app.battles import links, photos, service
from app.battles.models import BattlePhoto
from app.battles.schemas import (
    BattleOut,
    BattlePage,
    BattleWarbandOut,
    ConfirmLinkOut,
    DisputeIn,
    PhotoOut,
    SideOut,
    WinnersIn,
)
from app.campaigns.service import campaign_of
from app.core.images import MAX_BYTES
from app.core.pagination import Paging
from app.core.types import PathId, QueryRound

router = APIRouter(tags=["battles"])


def battle_out(view: service.BattleView) -> BattleOut:
    b = view.battle
    return BattleOut(
        id=b.id,
        round=b.round,
        place_id=b.place_id,
        event_id=b.event_id,
        scenario=b.scenario,
        other_mission=b.other_mission,
        roles=b.roles,
        beacon_hint=service.beacon_hint(b),
        notes=b.notes,
        status=b.status,
        seed=b.seed,
        sides=[_side_out(view, ws) for ws in view.sides()],
        winners=b.winners,
        reported_by_player_id=b.reported_by_player_id,
        confirmed_by=sorted(view.confirmations),
        dispute_reason=b.dispute_reason,
    )


def _side_out(view: service.BattleView, ws: list) -> SideOut:
    """V10: Underdog is the side's; each warband repeats its side's figures."""
    dog = view.side_figures(ws)
    return SideOut(
        side=ws[0].side,
        player_ids=sorted({w.player_id for w in ws}),
        role=ws[0].role,
        points=dog.points,
        underdog_dice=dog.underdog_dice,
        bonus_points=dog.bonus_points,
        warbands=[
            BattleWarbandOut(
                id=w.warband_id,
                player_id=w.player_id,
                name=w.name,
                points=w.points,
                roster=w.roster,
                underdog_dice=dog.underdog_dice,
                bonus_points=dog.bonus_points,
            )
            for w in ws
        ],
    )


@router.get("/campaigns/{cid}/battles", response_model=BattlePage)
def list_battles(
    cid: PathId,
    user: ApiUser,
    session: SessionDep,
    paging: Paging,
    round: int | None = QueryRound(),
):
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    found = service.battle_page(session, viewer.campaign, round, page=paging.page, per_page=paging.per_page)
    return BattlePage.of(found, battle_out)


@router.get("/campaigns/{cid}/battles/{bid}", response_model=BattleOut)
def get_battle(cid: PathId, bid: PathId, user: ApiUser, session: SessionDep):
    return battle_out(service.battle(session, actor=user, campaign_id=cid, battle_id=bid)[1])


def _after(session, user, cid, bid) -> BattleOut:
    return get_battle(cid, bid, user, session)


@router.post("/campaigns/{cid}/battles/{bid}/result", response_model=BattleOut)
def result(cid: PathId, bid: PathId, body: WinnersIn, user: ApiUser, session: SessionDep):
    service.report(session, actor=user, campaign_id=cid, battle_id=bid, winners=body.winner_player_ids)
    return _after(session, user, cid, bid)


@router.post("/campaigns/{cid}/battles/{bid}/confirm", response_model=BattleOut)
def confirm(cid: PathId, bid: PathId, user: ApiUser, session: SessionDep):
    service.confirm(session, actor=user, campaign_id=cid, battle_id=bid)
    return _after(session, user, cid, bid)


@router.post("/campaigns/{cid}/battles/{bid}/dispute", response_model=BattleOut)
def dispute(cid: PathId, bid: PathId, body: DisputeIn, user: ApiUser, session: SessionDep):
    service.dispute(session, actor=user, campaign_id=cid, battle_id=bid, reason=body.reason)
    return _after(session, user, cid, bid)


@router.post("/campaigns/{cid}/battles/{bid}/resolve", response_model=BattleOut)
def resolve(cid: PathId, bid: PathId, body: WinnersIn, user: ApiUser, session: SessionDep):
    service.resolve(session, actor=user, campaign_id=cid, battle_id=bid, winners=body.winner_player_ids)
    return _after(session, user, cid, bid)


# --- at the table (issue 33): a one-tap confirm link (R12.2), photos of the table (R12.3) ---
PRIVATE = {"Cache-Control": "private, max-age=31536000, immutable"}


def media_dir(request: Request):
    return request.app.state.settings.var_dir / "media"


def link_url(request: Request, token: str) -> str:
    return f"{str(request.base_url).rstrip('/')}/confirm/{token}"


def photo_url(cid: int, photo: BattlePhoto) -> str:
    return f"/campaigns/{cid}/battles/{photo.battle_id}/photos/{photo.id}"


def photo_out(cid: int, photo: BattlePhoto) -> PhotoOut:
    return PhotoOut(id=photo.id, url=photo_url(cid, photo), width=photo.width, height=photo.height, player_id=photo.player_id)


@router.post("/campaigns/{cid}/battles/{bid}/confirm-link", status_code=201, response_model=ConfirmLinkOut)
def make_confirm_link(cid: PathId, bid: PathId, request: Request, user: ApiUser, session: SessionDep):
    made = links.make(session, actor=user, campaign_id=cid, battle_id=bid)
    return ConfirmLinkOut(url=link_url(request, made.token), expires_at=made.expires_at)


@router.get("/campaigns/{cid}/battles/{bid}/photos", response_model=list[PhotoOut])
def list_photos(cid: PathId, bid: PathId, user: ApiUser, session: SessionDep):
    return [photo_out(cid, p) for p in photos.of_battle(session, actor=user, campaign_id=cid, battle_id=bid)]


@router.post("/campaigns/{cid}/battles/{bid}/photos", status_code=201, response_model=PhotoOut)
def add_photo(cid: PathId, bid: PathId, request: Request, user: ApiUser, session: SessionDep, file: UploadFile = File(...)):
    data = file.file.read(MAX_BYTES + 1)
    photo = photos.add(session, actor=user, campaign_id=cid, battle_id=bid, data=data, media_dir=media_dir(request))
    return photo_out(cid, photo)


@router.get("/campaigns/{cid}/battles/{bid}/photos/{photo_id}", response_class=FileResponse)
def get_photo(cid: PathId, bid: PathId, photo_id: PathId, request: Request, user: ApiUser, session: SessionDep):
    path = photos.file_of(session, actor=user, campaign_id=cid, battle_id=bid, photo_id=photo_id, media_dir=media_dir(request))
    return FileResponse(path, headers=PRIVATE)


@router.delete("/campaigns/{cid}/battles/{bid}/photos/{photo_id}", status_code=204)
def delete_photo(cid: PathId, bid: PathId, photo_id: PathId, request: Request, user: ApiUser, session: SessionDep):
    gone = photos.delete(session, actor=user, campaign_id=cid, battle_id=bid, photo_id=photo_id)
    photos.forget_file(session, gone.name, media_dir(request))
