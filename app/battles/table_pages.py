"""At the table (issue 33): the one-tap confirm link's page, opened without logging in (R12.2),
the battle page's Share form, and the photos of the table (R12.3)."""

from __future__ import annotations

from functools import partial
from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import FileResponse
from sqlmodel import Session

from app.accounts.deps import PageUser, SessionDep
from app.battles import links, photos
from app.battles.api import PRIVATE, media_dir
from app.battles.pages import battle_page
from app.campaigns import service as campaigns
from app.campaigns.deps import CampaignPage
from app.core.errors import N_, DomainError
from app.core.forms import Form
from app.core.images import MAX_BYTES
from app.core.page_actions import PageContext, page_action
from app.core.templating import render
from app.core.types import PathId
from app.maps import service as maps

router = APIRouter()
DONE = "/confirm-done"


# --- the link's page, without logging in -------------------------------------------------------


def _link_page(request: Request, session: Session, token: str, status_code: int = 200, **extra):
    opened = links.open_link(session, token)
    cid = opened.campaign.id
    names = campaigns.nicknames(session, cid)
    return render(
        request,
        "battles/confirm_link.html",
        status_code=status_code,
        opened=opened,
        view=opened.view,
        names=names,
        place=maps.labels(session, cid).get(opened.view.battle.place_id, ""),
        token=token,
        **extra,
    )


@router.get("/confirm/{token}")
def confirm_link_page(token: str, request: Request, session: SessionDep, _user: PageUser):
    return _link_page(request, session, token)


def _player(form) -> int | None:
    value = form.get("player_id")
    return int(value) if isinstance(value, str) and value.isdigit() and len(value) < 10 else None


@router.post("/confirm/{token}")
def use_confirm_link(token: str, request: Request, session: SessionDep, form: Form, _user: PageUser):
    page = PageContext(request, session, form)
    action = form.get("action") if form.get("action") in links.ACTIONS else "confirm"
    reason = form.get("reason") if isinstance(form.get("reason"), str) else ""
    said = N_("Result confirmed.") if action == "confirm" else N_("The dispute is sent to the game master.")
    return page_action(
        page,
        lambda: links.use(session, token=token, player_id=_player(form), action=action, reason=reason),
        again=partial(_link_page, request, session, token),
        passing=("not_found",),
        done=lambda _battle: page.redirect(DONE, said),
    )


@router.get(DONE)
def confirm_done(request: Request, _user: PageUser):
    return render(request, "battles/confirm_done.html")


# --- on the battle page -----------------------------------------------------------------------


@router.post("/campaigns/{cid}/battles/{bid}/confirm-link")
def share_link(bid: PathId, page: CampaignPage):
    def done(made):
        return page.redirect(f"/campaigns/{page.cid}/battles/{bid}?link={made.token}#share", N_("The link is ready to share."))

    return page_action(
        page,
        lambda: links.make(page.session, actor=page.user, campaign_id=page.cid, battle_id=bid),
        again=partial(battle_page, page, bid),
        done=done,
    )


async def _photo_file(form: Form) -> bytes | None:
    upload = form.get("file")
    if upload is None or isinstance(upload, str) or not upload.filename:
        return None
    return await upload.read(MAX_BYTES + 1)


def _photos(cid: int, bid: int) -> str:
    return f"/campaigns/{cid}/battles/{bid}#photos"


@router.post("/campaigns/{cid}/battles/{bid}/photos")
def add_photo(bid: PathId, page: CampaignPage, data: Annotated[bytes | None, Depends(_photo_file)]):
    def action():
        if data is None:
            raise DomainError("image_invalid")
        return photos.add(
            page.session, actor=page.user, campaign_id=page.cid, battle_id=bid, data=data, media_dir=media_dir(page.request)
        )

    return page_action(
        page,
        action,
        again=partial(battle_page, page, bid),
        passing=("not_found",),
        done=lambda _photo: page.redirect(_photos(page.cid, bid), N_("Photo added.")),
    )


@router.get("/campaigns/{cid}/battles/{bid}/photos/{photo_id}")
def photo(bid: PathId, photo_id: PathId, page: CampaignPage):
    path = photos.file_of(
        page.session, actor=page.user, campaign_id=page.cid, battle_id=bid, photo_id=photo_id, media_dir=media_dir(page.request)
    )
    return FileResponse(path, headers=PRIVATE)


def _deleted(page, gone, back: str):
    photos.forget_file(page.session, gone.name, media_dir(page.request))
    return page.redirect(back, N_("Photo deleted."))


DELETE_QUESTION = N_("Delete this photo?")
DELETE_DETAIL = N_("It is gone for everyone, from the battle page and the chronicle.")


@router.post("/campaigns/{cid}/battles/{bid}/photos/{photo_id}/delete")
def delete_photo(bid: PathId, photo_id: PathId, page: CampaignPage):
    back = _photos(page.cid, bid)
    return page_action(
        page,
        lambda: photos.delete(page.session, actor=page.user, campaign_id=page.cid, battle_id=bid, photo_id=photo_id),
        again=partial(battle_page, page, bid),
        passing=("not_found",),
        ask=lambda _photo: page.ask((DELETE_QUESTION, DELETE_DETAIL, N_("Delete")), cancel=back, tab="battles", danger=True),
        done=lambda gone: _deleted(page, gone, back),
    )
