"""R12.15: a company filled from a BattleScribe or New Recruit roster file, all or nothing.

Each model found is bought as the shop buys it (service.buy_model: the shop's rules, the
catalog's price, one ledger entry per purchase through the gold service), in the request's one
transaction: any refusal — not enough gold for the whole roster, a unique character held
already, the shop closed — rolls every purchase back.

What a player expects of a roster (decided here): a company without a faction takes the
roster's; a company of the same faction gets the roster's models added to those it has (an
import never sells anything: selling loses gold once the company is confirmed); a company of
another faction is refused with what to do, because changing the faction empties the company
and is the player's own step (R3.6)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlmodel import Session

from app.accounts.models import User
from app.catalog.battlescribe.roster import match_roster, read_roster
from app.catalog.catalog import Catalog, ProfileData
from app.companies import rules, service
from app.companies.models import CompanyModel
from app.core.errors import DomainError
from app.gold import rules as gold_rules
from app.visibility import acting_player

MAX_SHOWN_NAMES = 10  # a refusal names this many unmatched entries


@dataclass(frozen=True)
class Imported:
    faction: str
    bought: list[CompanyModel]
    unmatched: list[str]
    price: int  # what the models cost together
    gold: int  # the balance after


def import_roster(session: Session, *, actor: User, campaign_id: int, data: bytes, catalog: Catalog) -> Imported:
    """The roster file read, matched and bought (API.md `POST /campaigns/{cid}/company/import`)."""
    acting_player(session, actor, campaign_id)  # a stranger learns nothing of the file's problems
    match = match_roster(catalog, read_roster(data))
    keys = [p.key for p in match.profiles]
    return import_company(
        session,
        actor=actor,
        campaign_id=campaign_id,
        faction=match.faction,
        profile_keys=keys,
        unmatched=match.unmatched,
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
    unmatched: Sequence[str] = (),
) -> Imported:
    """The models of a matched roster bought (the page's confirm step posts them back)."""
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
    company = service.company_of(session, player.id)
    current = company.faction if company else None
    if current is not None and current != faction:
        raise DomainError("roster_other_faction", roster=catalog.factions[faction].name, company=_faction_name(catalog, current))
    price = sum(gold_rules.price(p.points, viewer.campaign.gold_per_point) for p in profiles)
    if price > player.gold:  # said for the whole roster, before any purchase
        raise DomainError("not_enough_gold", needed=price, have=player.gold)
    if current is None:
        service.choose_faction(session, actor=actor, campaign_id=campaign_id, faction=faction, catalog=catalog)
    bought = [
        service.buy_model(session, actor=actor, campaign_id=campaign_id, profile_key=p.key, catalog=catalog) for p in profiles
    ]
    models = [b.row for b in bought if isinstance(b.row, CompanyModel)]
    return Imported(faction, models, list(unmatched), price, bought[-1].balance)


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
