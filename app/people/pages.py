"""The players page's parts for people who come and go (issue 36): the game masters' section
(R12.8) and away rounds (R12.11). Each form acts once and says what it did (PRG)."""

from __future__ import annotations

from functools import partial

from fastapi import APIRouter

from app.campaigns import service as campaigns
from app.campaigns.deps import CampaignContext, CampaignPage
from app.campaigns.pages import players_page
from app.core.errors import N_, DomainError
from app.core.forms import typed, validate
from app.core.page_actions import page_action
from app.core.templating import render
from app.core.types import PathId
from app.maps import reading as map_reading
from app.people import service
from app.people.schemas import AwayIn, NicknameForm

router = APIRouter()
LABELS = {"nickname": N_("Nickname"), "from_round": N_("From round"), "to_round": N_("To round")}
CONFIRM_REMOVE = (
    N_("Remove %(nickname)s as game master?"),
    N_("%(nickname)s no longer runs this campaign and loses access to it at once."),
    N_("Remove"),
)


def _players(cid: int) -> str:
    return f"/campaigns/{cid}/players"


def _nickname(page: CampaignContext, pid: int) -> str:
    return campaigns.nicknames(page.session, page.cid).get(pid, "")


def _form_shown(page: CampaignContext, pid: int, *, gm_only: bool) -> bool:
    """Whether the seat's page draws this form for this viewer (it asks here: `seat_page`): a
    GM's, or the seat's own player's (the away rounds), while the campaign is open."""
    viewer = page.viewer
    mine = not gm_only and viewer.player is not None and viewer.player.id == pid
    return (viewer.is_gm or mine) and viewer.campaign.status != "finished"


def _said(reason: str, by_form: bool, errors_name: str, pid: int) -> dict:
    """A refusal's reason by its form, or above the page when the form is not there to hold it."""
    return {errors_name: {pid: reason}} if by_form else {"error": reason}


def seat_page(page: CampaignContext, pid: int, status_code: int = 200, **extra):
    """A player's seat: what the campaign's members see of them, and its forms for whoever may
    use them (the away rounds: the player and the GMs; the hand-over: the GMs)."""
    layout = page.layout()  # the viewer first: 404 for anybody not in the campaign
    players, places = map_reading.roster_and_places_seen(page.session, page.viewer)
    seat = next((p for p in players if p.player_id == pid), None)
    if seat is None:
        raise DomainError("not_found")
    forms = {"away_form": _form_shown(page, pid, gm_only=False), "handover_form": _form_shown(page, pid, gm_only=True)}
    places_by_id = {p.id: p for p in places}
    return render(
        page.request, "people/seat.html", status_code, **layout, **forms, p=seat, places=places_by_id, tab="players", **extra
    )


@router.get("/campaigns/{cid}/players/{pid}")
def seat(pid: PathId, page: CampaignPage):
    return seat_page(page, pid)


@router.post("/campaigns/{cid}/game-masters")
def add_game_master(page: CampaignPage):
    data = typed(page.form, "nickname")
    body, errors = validate(page.request, NicknameForm, data, LABELS)
    if errors:
        return players_page(page, status_code=422, gm_errors=errors, gm_nickname=data.get("nickname", ""))
    return page_action(
        page,
        lambda: service.add_game_master(page.session, actor=page.user, campaign_id=page.cid, nickname=body.nickname),
        again=partial(players_page, page, gm_nickname=body.nickname),
        fields=dict.fromkeys(("user_unknown", "already_gm", "player_cannot_be_gm"), ("gm_nickname", LABELS["nickname"])),
        done=lambda row: page.redirect(_players(page.cid), N_("%(nickname)s is now a game master."), nickname=row.nickname),
    )


@router.post("/campaigns/{cid}/game-masters/{user_id}/remove")
def remove_game_master(user_id: PathId, page: CampaignPage):
    def ask(nickname: str):
        return page.ask(CONFIRM_REMOVE, cancel=_players(page.cid), tab="players", danger=True, nickname=nickname)

    def done(nickname: str):
        if user_id == page.user.id:
            return page.redirect("/", N_("You are no longer a game master of this campaign."))
        return page.redirect(_players(page.cid), N_("%(nickname)s is no longer a game master."), nickname=nickname)

    return page_action(
        page,
        lambda: service.remove_game_master(page.session, actor=page.user, campaign_id=page.cid, user_id=user_id),
        again=partial(players_page, page),
        ask=ask,
        done=done,
    )


@router.post("/campaigns/{cid}/players/{pid}/away")
def mark_away(pid: PathId, page: CampaignPage):
    data = typed(page.form, "from_round", "to_round")
    body, errors = validate(page.request, AwayIn, data, LABELS)
    entered = {name: data.get(name, "") for name in ("from_round", "to_round")}

    def again(status_code: int, error: str | None = None, errors: dict | None = None):
        """The seat's page again, the rounds as typed; the reason by the form when it is about
        them (422) and the form is there for this viewer, above the page otherwise."""
        said = error if error is not None else " ".join((errors or {}).values())
        by_form = status_code == 422 and _form_shown(page, pid, gm_only=False)
        return seat_page(page, pid, status_code, **_said(said, by_form, "away_errors", pid), away_entered=entered)

    if errors:
        return again(422, errors=errors)

    def done(away):
        # Named: a GM marks others away, and the flash says whose seat it was.
        nickname = _nickname(page, pid)
        if away.from_round == away.to_round:
            return page.redirect(
                _players(page.cid), N_("%(nickname)s: away in round %(n)s."), nickname=nickname, n=away.from_round
            )
        return page.redirect(
            _players(page.cid),
            N_("%(nickname)s: away from round %(first)s to round %(last)s."),
            nickname=nickname,
            first=away.from_round,
            last=away.to_round,
        )

    return page_action(
        page,
        lambda: service.mark_away(
            page.session, actor=page.user, campaign_id=page.cid, player_id=pid, from_round=body.from_round, to_round=body.to_round
        ),
        again=again,
        done=done,
    )


@router.post("/campaigns/{cid}/players/{pid}/away/clear")
def clear_away(pid: PathId, page: CampaignPage):
    return page_action(
        page,
        lambda: service.clear_away(page.session, actor=page.user, campaign_id=page.cid, player_id=pid),
        again=partial(seat_page, page, pid),
        done=lambda _cleared: page.redirect(
            _players(page.cid), N_("%(nickname)s: no longer away."), nickname=_nickname(page, pid)
        ),
    )


CONFIRM_HANDOVER = (
    N_("Hand %(previous)s's seat to %(nickname)s?"),
    N_("%(nickname)s takes the company, gold, warbands, places and letters; %(previous)s loses them at once."),
    N_("Hand the seat over"),
)


@router.post("/campaigns/{cid}/players/{pid}/handover")
def handover(pid: PathId, page: CampaignPage):
    data = typed(page.form, "nickname")
    body, errors = validate(page.request, NicknameForm, data, LABELS)
    if errors:
        said, by_form = " ".join(errors.values()), _form_shown(page, pid, gm_only=True)
        return seat_page(page, pid, 422, **_said(said, by_form, "handover_errors", pid))

    def ask(names: tuple[str, str]):
        previous, nickname = names
        return page.ask(
            CONFIRM_HANDOVER,
            cancel=f"{_players(page.cid)}/{pid}",
            tab="players",
            danger=True,
            previous=previous,
            nickname=nickname,
        )

    def done(names: tuple[str, str]):
        previous, nickname = names
        return page.redirect(
            _players(page.cid), N_("%(nickname)s now holds %(previous)s's seat."), previous=previous, nickname=nickname
        )

    return page_action(
        page,
        lambda: service.handover(page.session, actor=page.user, campaign_id=page.cid, player_id=pid, nickname=body.nickname),
        again=partial(seat_page, page, pid),
        ask=ask,
        done=done,
    )
