"""What the warbands pages read on every visit, each statement built once with bind parameters
(issue 37: building a statement anew cost each request about 80 µs of SQLAlchemy's
construction and cache key). The service (app/warbands/service.py) runs them."""

from __future__ import annotations

from sqlalchemy import bindparam, func
from sqlmodel import col, select

from app.companies.models import Company, CompanyItem, CompanyModel
from app.warbands.models import Warband, WarbandMember

_PLAYER = bindparam("player_id")
_MODEL_IDS = bindparam("model_ids", expanding=True)
_WARBAND_IDS = bindparam("warband_ids", expanding=True)

# Every model of the members' companies, so each is labelled among its profile (issue 29) in one
# statement; in id order: the members (and what is said of them, R4.7) come out in the order they
# were bought, on every database.
SIBLINGS = (
    select(CompanyModel)
    .where(col(CompanyModel.company_id).in_(select(CompanyModel.company_id).where(col(CompanyModel.id).in_(_MODEL_IDS))))
    .order_by(col(CompanyModel.id))
)
COMPANY_MODEL_IDS = select(CompanyModel.id).where(CompanyModel.company_id == bindparam("company_id"))
CARRIED = select(CompanyItem).where(col(CompanyItem.model_id).in_(_MODEL_IDS)).order_by(col(CompanyItem.id))
OWN_WARBANDS = select(Warband).where(Warband.player_id == _PLAYER).order_by(col(Warband.id))
LINKS = select(WarbandMember).where(col(WarbandMember.warband_id).in_(_WARBAND_IDS))
SENT_MODELS = (
    select(WarbandMember.model_id, Warband.name)
    .join(Warband, col(Warband.id) == WarbandMember.warband_id)
    .where(col(WarbandMember.warband_id).in_(_WARBAND_IDS))
)
MEMBERSHIPS = (
    select(WarbandMember.model_id, Warband.id, Warband.name)
    .join(Warband, col(Warband.id) == WarbandMember.warband_id)
    .where(Warband.player_id == _PLAYER)
)
RETINUE = (
    select(func.count())
    .select_from(CompanyModel)
    .join(Company, col(Company.id) == CompanyModel.company_id)
    .where(
        Company.player_id == _PLAYER,
        CompanyModel.role == "retinue",
        col(CompanyModel.status).not_in(("dead", "captured")),
    )
)

# What building, changing, sending and undoing a warband ask, built once too.
_WARBAND = bindparam("warband_id")
MEMBER_IDS = select(WarbandMember.model_id).where(WarbandMember.warband_id == _WARBAND)
MEMBER_LINKS = select(WarbandMember).where(WarbandMember.warband_id == _WARBAND)
MEMBER_LINK = MEMBER_LINKS.where(WarbandMember.model_id == bindparam("model_id"))
TAKEN = (
    select(WarbandMember.model_id, Warband.name)
    .join(Warband, col(Warband.id) == WarbandMember.warband_id)
    .where(col(WarbandMember.model_id).in_(_MODEL_IDS), WarbandMember.warband_id != _WARBAND)
)
