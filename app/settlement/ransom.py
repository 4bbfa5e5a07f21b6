"""Ransom (V12, V17): the captor names a price for a prisoner, the owner pays it (the only gold
a settlement moves) or refuses; at End round an unanswered ransom lapses."""

from __future__ import annotations

from sqlalchemy import bindparam
from sqlmodel import Session, col, select

from app.accounts.models import User
from app.campaigns.models import Campaign
from app.campaigns.service import nicknames
from app.companies.models import CompanyModel
from app.core.db import saved_id, utcnow
from app.core.errors import N_, DomainError
from app.core.rows import row_by_id
from app.gold import service as gold
from app.settlement.models import Ransom
from app.visibility import Viewer, require_writable, viewer_for, visible_ransoms

RANSOM_PHASES = ("settlement", "twilight")
_MODEL_NAMES = select(CompanyModel.id, CompanyModel.name).where(col(CompanyModel.id).in_(bindparam("ids", expanding=True)))


def ransoms(session: Session, *, actor: User, campaign_id: int) -> tuple[Viewer, list[Ransom], dict[int, str]]:
    viewer = viewer_for(session, actor, campaign_id)
    found = visible_ransoms(session, viewer)
    models = {"ids": [r.model_id for r in found]}
    names = {saved_id(model_id): name for model_id, name in session.exec(_MODEL_NAMES, params=models).all()} if found else {}
    return viewer, found, names


def _ransom(session: Session, actor: User, campaign_id: int, ransom_id: int) -> tuple[Viewer, Ransom]:
    viewer = viewer_for(session, actor, campaign_id, lock=True)
    require_writable(viewer)
    found = visible_ransoms(session, viewer, lock=True, ransom_id=ransom_id)
    if not found:
        raise DomainError("not_found")
    if (
        viewer.campaign.status != "running"
        or viewer.campaign.phase not in RANSOM_PHASES
        or viewer.campaign.round != found[0].round
    ):
        raise DomainError("ransom_phase")
    if found[0].status not in ("awaiting", "offered"):
        raise DomainError("ransom_decided")
    return viewer, found[0]


def offer(session: Session, *, actor: User, campaign_id: int, ransom_id: int, price: int) -> Ransom:
    """The captor names (or changes) the price while the owner has not answered."""
    viewer, ransom = _ransom(session, actor, campaign_id, ransom_id)
    if viewer.player is None or viewer.player.id != ransom.captor_player_id:
        raise DomainError("ransom_captor_only")
    ransom.price, ransom.status = price, "offered"
    session.add(ransom)
    return ransom


def answer(session: Session, *, actor: User, campaign_id: int, ransom_id: int, pay: bool) -> Ransom:
    """The owner pays the price (a ledger entry on both sides) and the model comes back, or
    refuses and the model is lost to them."""
    viewer, ransom = _ransom(session, actor, campaign_id, ransom_id)
    if viewer.player is None or viewer.player.id != ransom.owner_player_id:
        raise DomainError("ransom_owner_only")
    if ransom.status != "offered":
        raise DomainError("ransom_no_offer")
    model = row_by_id(session, CompanyModel, ransom.model_id)
    if pay:
        if ransom.price:
            # Both ledgers say whose prisoner it was and who got the gold (V12), in the reader's language.
            names = nicknames(session, viewer.campaign_id)
            model_name = model.name if model else ""
            gold.pay(
                session,
                campaign=viewer.campaign,
                player_id=ransom.owner_player_id,
                amount=ransom.price,
                kind="ransom",
                note=N_("%(model)s · to %(player)s"),
                params={"model": model_name, "player": names.get(ransom.captor_player_id, "")},
            )
            gold.credit(
                session,
                campaign=viewer.campaign,
                player_id=ransom.captor_player_id,
                amount=ransom.price,
                kind="ransom",
                note=N_("%(model)s · from %(player)s"),
                params={"model": model_name, "player": names.get(ransom.owner_player_id, "")},
            )
        if model is not None and model.status == "captured":
            model.status, model.miss_round = "ready", None
            session.add(model)
    ransom.status, ransom.decided_at = ("paid" if pay else "refused"), utcnow()
    session.add(ransom)
    return ransom


def lapse_ransoms(session: Session, *, campaign: Campaign) -> int:
    """End round: a ransom nobody paid lapses and the prisoner is lost to its owner."""
    rows = list(
        session.exec(
            select(Ransom).where(Ransom.campaign_id == campaign.id, col(Ransom.status).in_(("awaiting", "offered")))
        ).all()
    )
    for r in rows:
        r.status, r.decided_at = "lapsed", utcnow()
        session.add(r)
    return len(rows)
