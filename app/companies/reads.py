"""What the company, shop and warbands pages read of a company on every visit, each statement built
once with bind parameters (issue 37: building a statement anew cost each request about 80 µs of
SQLAlchemy's construction and cache key). The service (app/companies/service.py) runs them."""

from __future__ import annotations

from sqlalchemy import bindparam
from sqlmodel import col, select

from app.companies.models import Company, CompanyItem, CompanyModel

COMPANY = select(Company).where(Company.player_id == bindparam("player_id"))
MODELS = select(CompanyModel).where(CompanyModel.company_id == bindparam("company_id")).order_by(col(CompanyModel.id))
ITEMS = select(CompanyItem).where(CompanyItem.company_id == bindparam("company_id")).order_by(col(CompanyItem.id))
# What a purchase, a sale or a warband's making reads too, written on every one of them.
COMPANY_LOCKED = COMPANY.with_for_update()
ITEMS_OF_MODEL = select(CompanyItem).where(CompanyItem.model_id == bindparam("model_id"))
_OF_MODELS = select(CompanyModel.company_id).where(col(CompanyModel.id).in_(bindparam("model_ids", expanding=True)))
LABEL_ROWS = select(
    CompanyModel.company_id, CompanyModel.id, CompanyModel.profile_key, CompanyModel.name, CompanyModel.given_name
)
LABELS_OF_MODELS = LABEL_ROWS.where(col(CompanyModel.company_id).in_(_OF_MODELS))
