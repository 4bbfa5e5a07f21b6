"""The catalog pages: factions with their models, items, mercenaries and scenarios."""

from __future__ import annotations

from fastapi import APIRouter, Request

from app.accounts.deps import PageUser
from app.catalog import names
from app.catalog.catalog import STATS
from app.catalog.deps import CatalogDep
from app.core.errors import DomainError
from app.core.templating import add_globals, render

add_globals(
    TYPE_NAMES=names.TYPE_NAMES,
    SLOT_NAMES=names.SLOT_NAMES,
    RARITY_NAMES=names.RARITY_NAMES,
    ALIGNMENT_NAMES=names.ALIGNMENT_NAMES,
    STAT_KEYS=STATS,
    MODEL_STATUS_NAMES=names.MODEL_STATUS_NAMES,
)

router = APIRouter()


@router.get("/catalog")
def catalog_page(request: Request, user: PageUser, catalog: CatalogDep):
    return render(
        request,
        "catalog/catalog.html",
        catalog=catalog,
        factions=sorted(catalog.factions.values(), key=lambda f: f.name),
        items=sorted(catalog.items.values(), key=lambda i: (i.slot, i.rarity, i.name)),
        mercenaries=sorted(catalog.mercenaries.values(), key=lambda m: m.name),
        scenarios=sorted(catalog.scenarios.values(), key=lambda s: s.name),
    )


@router.get("/catalog/{key}")
def faction_page(key: str, request: Request, user: PageUser, catalog: CatalogDep):
    faction = catalog.factions.get(key)
    if faction is None:
        raise DomainError("not_found")
    return render(request, "catalog/faction.html", faction=faction, profiles=catalog.faction_profiles(key))
