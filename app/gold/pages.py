"""The ledger page and the GM's adjustments (R3.8, R11.2): the same service and the same
input schema as the API."""
from __future__ import annotations

from fastapi import APIRouter, Request

from app.accounts.deps import PageLogin, SessionDep
from app.campaigns import service as campaigns, terms
from app.core import flash
from app.core.errors import N_, DomainError
from app.core.forms import Form, blank_to_none, confirm_page, confirmed, refusal, see_other, typed, validate
from app.core.types import PathId, QueryId, QueryPage
from app.core.templating import render, request_gettext
from app.core.validation import named_code
from app.gold import rules as gold_rules, service as gold
from app.gold.schemas import AdjustmentIn, TransferIn
from app.campaigns.service import campaign_of, gm_campaign
from app.gold.notes import note_text

router = APIRouter()
LABELS = {"amount": N_("Amount"), "reason": N_("Reason"), "player_id": N_("Player")}


def _ledger_page(request, session, user, cid, player_id, page=1, status_code=200, **extra):
    result = gold.ledger(session, actor=user, campaign_id=cid, player_id=player_id, page=page, per_page=30)
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    nickname = next((p.nickname for p in campaigns.players(session, cid) if p.player_id == result.player_id), "")
    return render(request, "gold/ledger.html", status_code=status_code, viewer=viewer, campaign=viewer.campaign,
                  ledger=result, nickname=nickname, kinds=gold_rules.KINDS, tab="company",
                  note_text=lambda e: note_text(e, request_gettext(request)), **extra)


@router.get("/campaigns/{cid}/ledger")
def ledger(cid: PathId, request: Request, user: PageLogin, session: SessionDep,
           player_id: int | None = QueryId(), page: int = QueryPage()):
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    if viewer.is_gm and player_id is None:
        return see_other(f"/campaigns/{cid}/companies")
    return _ledger_page(request, session, user, cid, player_id, page)


@router.post("/campaigns/{cid}/ledger/adjustments")
def adjust(cid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    """R3.8: every problem of the form at once, next to its field; what was typed stays."""
    gm_campaign(session, actor=user, campaign_id=cid)
    posted = {"player_id": "", "amount": "", "reason": "", **typed(form, "player_id", "amount", "reason")}
    body, errors = validate(request, AdjustmentIn, blank_to_none(posted), LABELS)
    if "player_id" in errors:
        raise DomainError("player_id_required")
    player_id = body.player_id if body else int(posted["player_id"].strip())
    gettext = request_gettext(request)
    if body is not None and body.amount == 0:
        errors["amount"] = named_code(gettext, LABELS["amount"], "amount_zero")
    if not posted["reason"].strip():  # say why a reason matters, not only that it is missing
        errors["reason"] = named_code(gettext, LABELS["reason"], "reason_required")
    if errors:
        return _ledger_page(request, session, user, cid, player_id, status_code=422, errors=errors, form=posted)
    try:
        gold.adjust(session, actor=user, campaign_id=cid, player_id=body.player_id, amount=body.amount, reason=body.reason)
    except DomainError as exc:
        message = refusal(request, session, exc)
        return _ledger_page(request, session, user, cid, player_id, status_code=exc.status, error=message, errors={}, form=posted)
    nickname = next((p.nickname for p in campaigns.players(session, cid) if p.player_id == body.player_id), "")
    return flash.redirect(request, f"/campaigns/{cid}/ledger?player_id={body.player_id}",
                          N_("Gold adjusted for %(nickname)s: %(amount)s."), nickname=nickname, amount=f"{body.amount:+d}")


# --- gold transfers (R8.11, R9.5): a player's page, reached in two taps from the Players tab ---

TRANSFER_LABELS = {"to_player_id": N_("Recipient"), "amount": N_("Amount"), "note": N_("Note (only the two of you see it)")}
CONFIRM_TRANSFER = (N_("Send %(amount)s gold to %(nickname)s?"),
                    N_("Only the two of you will see it. It cannot be undone."), N_("Send gold"))


def _transfer_page(request, session, user, cid, status_code=200, form=None, **extra):
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    terms.require_module(viewer.campaign, gold.TRANSFERS)
    if viewer.player is None:
        raise DomainError("not_a_player")
    players = campaigns.players(session, cid, viewer)
    me = next(p for p in players if p.player_id == viewer.player.id)
    recent = gold.transfers(session, viewer, per_page=10)
    return render(request, "gold/transfer.html", status_code=status_code, viewer=viewer, campaign=viewer.campaign, tab="players",
                  others=[p for p in players if p.player_id != me.player_id], balance=me.gold, recent=recent.items,
                  names={p.player_id: p.nickname for p in players}, form=form or {}, **extra)


@router.get("/campaigns/{cid}/transfers/new")
def transfer_form(cid: PathId, request: Request, user: PageLogin, session: SessionDep, to: int | None = QueryId()):
    return _transfer_page(request, session, user, cid, form={"to_player_id": str(to) if to else ""})


@router.post("/campaigns/{cid}/transfers")
def send_gold(cid: PathId, request: Request, user: PageLogin, session: SessionDep, form: Form):
    posted = {"to_player_id": "", "amount": "", "note": "", **typed(form, "to_player_id", "amount", "note")}
    # The note is optional: left blank it is no note, not a missing field.
    body, errors = validate(request, TransferIn, {**blank_to_none(posted), "note": posted["note"]}, TRANSFER_LABELS)
    if errors:
        return _transfer_page(request, session, user, cid, status_code=422, errors=errors, form=posted)
    try:
        gold.send_gold(session, actor=user, campaign_id=cid, to_player_id=body.to_player_id, amount=body.amount, note=body.note)
    except DomainError as exc:
        message = refusal(request, session, exc)
        return _transfer_page(request, session, user, cid, status_code=exc.status, error=message, errors={}, form=posted)
    nickname = next((p.nickname for p in campaigns.players(session, cid) if p.player_id == body.to_player_id), "")
    if not confirmed(form):
        gettext = request_gettext(request)
        question, detail, button = CONFIRM_TRANSFER
        viewer = campaign_of(session, actor=user, campaign_id=cid)
        return confirm_page(request, session, form, question=gettext(question) % {"amount": body.amount, "nickname": nickname},
                            detail=gettext(detail), action=f"/campaigns/{cid}/transfers", button=gettext(button),
                            cancel=f"/campaigns/{cid}/transfers/new?to={body.to_player_id}",
                            viewer=viewer, campaign=viewer.campaign, tab="players")
    return flash.redirect(request, f"/campaigns/{cid}/ledger", N_("You sent %(amount)s gold to %(nickname)s."),
                          amount=body.amount, nickname=nickname)
