"""R12.15: a company filled from a BattleScribe or New Recruit roster file, all or nothing.

Each model found is bought as the shop buys it (service.buy_model: the shop's rules, the
catalog's price, one ledger entry per purchase through the gold service), in the request's one
transaction: any refusal — not enough gold for the whole roster, a unique character held
already, the shop closed — rolls every purchase back.

What a player expects of a roster (decided here): a company without a faction takes the
roster's; a company of the same faction gets the roster's models added to those it has (an
import never sells anything: selling loses gold once the company is confirmed); a company of
another faction is refused with what to do, because changing the faction empties the company
and is the player's own step (R3.6).

A model's upgrades found among the catalog's items are bought as the shop buys an item
(service.buy_item) and given to that model (service.assign_item, V8's limits); upgrades of no
one model go to the stash. An upgrade the shop does not sell (a Unique item: rewards only,
R3.7) or the model may not carry (V8) is not bought and is listed, with the model's label
("Rabble 2: Holy Water"), as are the upgrades not in the catalog: nothing is dropped unsaid."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlmodel import Session

from app.accounts.models import User
from app.catalog.battlescribe.roster import match_roster, read_roster
from app.catalog.catalog import Catalog, ProfileData
from app.companies import rules, service
from app.companies.models import CompanyItem, CompanyModel
from app.core.errors import DomainError
from app.gold import rules as gold_rules
from app.visibility import acting_player

MAX_SHOWN_NAMES = 10  # a refusal names this many unmatched entries


@dataclass(frozen=True)
class Imported:
    faction: str
    bought: list[CompanyModel]
    unmatched: list[str]  # not in the catalog: models by name, upgrades as "<model's label>: <name>"
    price: int  # what the models and items cost together
    gold: int  # the balance after
    items: list[CompanyItem] = field(default_factory=list)  # bought with their models (or to the stash)
    refused: list[str] = field(default_factory=list)  # items not for sale (Unique) or past what a model carries


Planned = tuple[int | None, str]  # an item for a model (its index among the profiles; None: the stash) by key


def import_roster(session: Session, *, actor: User, campaign_id: int, data: bytes, catalog: Catalog) -> Imported:
    """The roster file read, matched and bought (API.md `POST /campaigns/{cid}/company/import`)."""
    acting_player(session, actor, campaign_id)  # a stranger learns nothing of the file's problems
    match = match_roster(catalog, read_roster(data))
    return import_company(
        session,
        actor=actor,
        campaign_id=campaign_id,
        faction=match.faction,
        profile_keys=[p.key for p in match.profiles],
        item_keys=[(model, item.key) for model, item in match.items],
        unmatched=match.unmatched,
        lost=match.lost,
        catalog=catalog,
    )


def import_company(
    session: Session,
    *,
    actor: User,
    campaign_id: int,
    faction: str,
    profile_keys: Sequence[str],
    catalog: Catalog,
    item_keys: Sequence[Planned] = (),
    unmatched: Sequence[str] = (),
    lost: Sequence[tuple[int | None, str]] = (),
    refused: Sequence[str] = (),
) -> Imported:
    """The models of a matched roster bought with their items (the page's confirm step posts
    them back); `lost` are upgrades not in the catalog, listed with their model's label."""
    viewer = acting_player(session, actor, campaign_id)
    player = viewer.player
    if player is None or player.id is None:  # acting_player answers only for a player
        raise DomainError("forbidden")
    rules.check_shop(viewer.campaign.status, viewer.campaign.phase)
    if faction not in catalog.factions:
        raise DomainError("faction_unknown", faction=faction)
    if not profile_keys:
        raise DomainError("roster_nothing_matched", names=", ".join(list(unmatched)[:MAX_SHOWN_NAMES]) or "-")
    profiles = [_profile(catalog, faction, key) for key in profile_keys]
    items, not_sold = _sellable(catalog, profiles, item_keys)
    company = service.company_of(session, player.id)
    current = company.faction if company else None
    if current is not None and current != faction:
        raise DomainError("roster_other_faction", roster=catalog.factions[faction].name, company=_faction_name(catalog, current))
    per_point = viewer.campaign.gold_per_point
    price = sum(gold_rules.price(p.points, per_point) for p in profiles)
    price += sum(gold_rules.price(catalog.items[key].points, per_point) for _model, key in items)
    if price > player.gold:  # said for the whole roster, before any purchase
        raise DomainError("not_enough_gold", needed=price, have=player.gold)
    if current is None:
        service.choose_faction(session, actor=actor, campaign_id=campaign_id, faction=faction, catalog=catalog)
    bought = [
        service.buy_model(session, actor=actor, campaign_id=campaign_id, profile_key=p.key, catalog=catalog) for p in profiles
    ]
    models = [b.row for b in bought if isinstance(b.row, CompanyModel)]
    carried, balance = _buy_items(session, actor, campaign_id, catalog, models, items)
    labels = service.labels_of(session, [m.id for m in models])

    def named(model: int | None, name: str) -> str:
        return f"{labels.get(models[model].id, models[model].name)}: {name}" if model is not None else name

    missing = list(dict.fromkeys([*unmatched, *(named(m, n) for m, n in lost)]))
    kept_out = list(dict.fromkeys([*refused, *(named(m, n) for m, n in not_sold)]))
    gold = bought[-1].balance if balance is None else balance
    return Imported(faction, models, missing, price, gold, carried, kept_out)


def _sellable(
    catalog: Catalog, profiles: list[ProfileData], planned: Sequence[Planned]
) -> tuple[list[Planned], list[tuple[int | None, str]]]:
    """The planned items the shop sells and each model may carry (V8, in the roster's order),
    and those it may not, by name."""
    items: list[Planned] = []
    refused: list[tuple[int | None, str]] = []
    carried: dict[int, list[rules.Carried]] = {}
    for model, key in planned:
        data = catalog.items.get(key)
        if data is None:
            raise DomainError("item_unknown", item=key)
        if model is not None and not 0 <= model < len(profiles):
            raise DomainError("item_unknown", item=key)
        new = rules.Carried(data.slot, data.rarity)
        if data.rarity == "Unique" or (
            model is not None and rules.item_problem(list(profiles[model].types), carried.get(model, []), new)
        ):
            refused.append((model, data.name))
            continue
        if model is not None:
            carried.setdefault(model, []).append(new)
        items.append((model, key))
    return items, refused


def _buy_items(
    session: Session, actor: User, campaign_id: int, catalog: Catalog, models: list[CompanyModel], items: Sequence[Planned]
) -> tuple[list[CompanyItem], int | None]:
    """Each item bought as the shop buys it (one ledger entry), then given to its model."""
    rows: list[CompanyItem] = []
    balance = None
    for model, key in items:
        purchase = service.buy_item(session, actor=actor, campaign_id=campaign_id, item_key=key, catalog=catalog)
        item, balance = purchase.row, purchase.balance
        if not isinstance(item, CompanyItem) or item.id is None:  # buy_item makes an item, flushed
            raise DomainError("item_unknown", item=key)
        if model is not None:
            item = service.assign_item(session, actor=actor, campaign_id=campaign_id, item_id=item.id, model_id=models[model].id)
        rows.append(item)
    return rows, balance


def _profile(catalog: Catalog, faction: str, key: str) -> ProfileData:
    profile = catalog.profiles.get(key)
    if profile is None:
        raise DomainError("profile_unknown", profile=key)
    if profile.faction != faction:
        raise DomainError("profile_other_faction", name=profile.name)
    return profile


def _faction_name(catalog: Catalog, key: str) -> str:
    faction = catalog.factions.get(key)
    return faction.name if faction else key
