"""The ledger page and the GM's adjustments (R3.8, R11.2): the same service and the same
input schema as the API."""

from __future__ import annotations

from functools import partial

from fastapi import APIRouter, Query

from app.campaigns import service as campaigns
from app.campaigns import terms
from app.campaigns.deps import CampaignContext, CampaignPage
from app.campaigns.service import gm_campaign
from app.core.errors import N_, DomainError
from app.core.forms import blank_to_none, see_other, typed, validate
from app.core.page_actions import page_action
from app.core.templating import render, request_gettext
from app.core.types import QueryId
from app.core.validation import named_code
from app.gold import rules as gold_rules
from app.gold import service as gold
from app.gold.notes import note_text
from app.gold.schemas import AdjustmentIn, TransferIn

router = APIRouter()
LABELS = {"amount": N_("Amount"), "reason": N_("Reason"), "player_id": N_("Player")}


def _ledger_page(page: CampaignContext, player_id, number=1, status_code=200, **extra):
    request, session = page.request, page.session
    result = gold.ledger_for(session, page.viewer, player_id, page=number, per_page=30)
    viewer = page.viewer
    nickname = _nickname(page, result.player_id)
    return render(
        request,
        "gold/ledger.html",
        status_code=status_code,
        viewer=viewer,
        campaign=viewer.campaign,
        ledger=result,
        nickname=nickname,
        kinds=gold_rules.KINDS,
        tab="company",
        note_text=lambda e: note_text(e, request_gettext(request)),
        **extra,
    )


@router.get("/campaigns/{cid}/ledger")
def ledger(page: CampaignPage, player_id: int | None = QueryId(), number: int = Query(1, ge=1, le=100_000, alias="page")):
    if page.viewer.is_gm and player_id is None:
        return see_other(f"/campaigns/{page.cid}/companies")
    return _ledger_page(page, player_id, number)


def _nickname(page: CampaignContext, player_id: int) -> str:
    return campaigns.nicknames(page.session, page.cid).get(player_id, "")


@router.post("/campaigns/{cid}/ledger/adjustments")
def adjust(page: CampaignPage):
    """R3.8: every problem of the form at once, next to its field; what was typed stays."""
    request, session, cid = page.request, page.session, page.cid
    gm_campaign(session, actor=page.user, campaign_id=cid)
    posted = {"player_id": "", "amount": "", "reason": "", **typed(page.form, "player_id", "amount", "reason")}
    body, errors = validate(request, AdjustmentIn, blank_to_none(posted), LABELS)
    if "player_id" in errors:
        raise DomainError("player_id_required")
    player_id = body.player_id if body else int(posted["player_id"].strip())
    gettext = page.gettext
    if body is not None and body.amount == 0:
        errors["amount"] = named_code(gettext, LABELS["amount"], "amount_zero")
    if not posted["reason"].strip():  # say why a reason matters, not only that it is missing
        errors["reason"] = named_code(gettext, LABELS["reason"], "reason_required")
    if errors:
        return _ledger_page(page, player_id, status_code=422, errors=errors, form=posted)
    return page_action(
        page,
        lambda: gold.adjust(
            session, actor=page.user, campaign_id=cid, player_id=body.player_id, amount=body.amount, reason=body.reason
        ),
        again=partial(_ledger_page, page, player_id, errors={}, form=posted),
        done=lambda _entry: page.redirect(
            f"/campaigns/{cid}/ledger?player_id={body.player_id}",
            N_("Gold adjusted for %(nickname)s: %(amount)s."),
            nickname=_nickname(page, body.player_id),
            amount=f"{body.amount:+d}",
        ),
    )


# --- gold transfers (R8.11, R9.5): a player's page, reached in two taps from the Players tab ---

TRANSFER_LABELS = {"to_player_id": N_("Recipient"), "amount": N_("Amount"), "note": N_("Note (only the two of you see it)")}
CONFIRM_TRANSFER = (
    N_("Send %(amount)s gold to %(nickname)s?"),
    N_("Only the two of you will see it. It cannot be undone."),
    N_("Send gold"),
)


def _transfer_page(page: CampaignContext, status_code=200, form=None, **extra):
    session, viewer = page.session, page.viewer
    terms.require_module(viewer.campaign, gold.TRANSFERS)
    if viewer.player is None:
        raise DomainError("not_a_player")
    players = campaigns.players(session, page.cid, viewer)
    me = next(p for p in players if p.player_id == viewer.player.id)
    recent = gold.transfers(session, viewer, per_page=10)
    return render(
        page.request,
        "gold/transfer.html",
        status_code=status_code,
        viewer=viewer,
        campaign=viewer.campaign,
        tab="players",
        others=[p for p in players if p.player_id != me.player_id],
        balance=me.gold,
        recent=recent.items,
        names={p.player_id: p.nickname for p in players},
        form=form or {},
        **extra,
    )


@router.get("/campaigns/{cid}/transfers/new")
def transfer_form(page: CampaignPage, to: int | None = QueryId()):
    return _transfer_page(page, form={"to_player_id": str(to) if to else ""})


@router.post("/campaigns/{cid}/transfers")
def send_gold(page: CampaignPage):
    posted = {"to_player_id": "", "amount": "", "note": "", **typed(page.form, "to_player_id", "amount", "note")}
    # The note is optional: left blank it is no note, not a missing field.
    body, errors = validate(page.request, TransferIn, {**blank_to_none(posted), "note": posted["note"]}, TRANSFER_LABELS)
    if errors:
        return _transfer_page(page, status_code=422, errors=errors, form=posted)
    cid = page.cid

    def ask(_transfer):
        return page.ask(
            CONFIRM_TRANSFER,
            cancel=f"/campaigns/{cid}/transfers/new?to={body.to_player_id}",
            tab="players",
            amount=body.amount,
            nickname=_nickname(page, body.to_player_id),
        )

    return page_action(
        page,
        lambda: gold.send_gold(
            page.session, actor=page.user, campaign_id=cid, to_player_id=body.to_player_id, amount=body.amount, note=body.note
        ),
        again=partial(_transfer_page, page, errors={}, form=posted),
        ask=ask,
        done=lambda _transfer: page.redirect(
            f"/campaigns/{cid}/ledger",
            N_("You sent %(amount)s gold to %(nickname)s."),
            amount=body.amount,
            nickname=_nickname(page, body.to_player_id),
        ),
    )
