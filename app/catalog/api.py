from __future__ import annotations

from fastapi import APIRouter

from app.catalog.catalog import ItemData, ProfileData, ScenarioData
from app.catalog.deps import CatalogDep
from app.catalog.schemas import FactionDetail, FactionOut
from app.core.errors import DomainError

router = APIRouter(tags=["catalog"])


@router.get("/catalog/factions", response_model=list[FactionOut])
def factions(catalog: CatalogDep):
    return [FactionOut(**f.model_dump()) for f in sorted(catalog.factions.values(), key=lambda f: f.name)]


@router.get("/catalog/factions/{key}", response_model=FactionDetail)
def faction(key: str, catalog: CatalogDep):
    data = catalog.factions.get(key)
    if data is None:
        raise DomainError("not_found")
    return FactionDetail(**data.model_dump(), profiles=catalog.faction_profiles(key))


@router.get("/catalog/items", response_model=list[ItemData])
def items(catalog: CatalogDep):
    return sorted(catalog.items.values(), key=lambda i: (i.slot, i.rarity, i.name))


@router.get("/catalog/mercenaries", response_model=list[ProfileData])
def mercenaries(catalog: CatalogDep):
    return sorted(catalog.mercenaries.values(), key=lambda m: m.name)


@router.get("/catalog/scenarios", response_model=list[ScenarioData])
def scenarios(catalog: CatalogDep):
    return sorted(catalog.scenarios.values(), key=lambda s: s.name)
