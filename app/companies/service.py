"""Company and shop use cases (R3.1-R3.9, V3, V7, V8). Gold moves only through
app/gold/service.py; the company row is locked while it changes. A roster file bought in one
step (R12.15) is roster_import.py, which buys through buy_model here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from sqlmodel import Session, select

from app.accounts.models import User
from app.audit import service as audit
from app.campaigns.models import Campaign, Player
from app.catalog.catalog import Catalog
from app.catalog.names import SLOT_NAMES
from app.companies import reads, rules
from app.companies.models import Company, CompanyItem, CompanyModel
from app.core.db import utcnow
from app.core.errors import N_, DomainError, Msg
from app.core.ports import Port
from app.core.rows import row_by_id
from app.gold import rules as gold_rules
from app.gold import service as gold
from app.visibility import Viewer, acting_player, campaign_row, gm_viewer, hidden_gold, kept, private_owner, viewer_for


@dataclass(frozen=True)
class Purchase:
    """What a purchase did: the row bought, what it cost, the gold left."""

    row: CompanyModel | CompanyItem
    price: int
    balance: int

    @property
    def name(self) -> str:
        return self.row.name


@dataclass(frozen=True)
class Sale:
    """What a sale did: what was sold, what came back (R3.4), the gold after."""

    name: str
    paid: int
    refund: int
    balance: int


@dataclass
class CompanyView:
    player: Player
    company: Company | None
    models: list[CompanyModel] = field(default_factory=list)
    items: list[CompanyItem] = field(default_factory=list)
    gold: int | None = 0  # as this viewer may see it: None for the GM with gold transfers on (R11.2)

    def items_of(self, model_id: int | None) -> list[CompanyItem]:
        return [i for i in self.items if i.model_id == model_id]

    @cached_property
    def labels(self) -> dict[int, str]:
        """Each model's label: its given name, or its profile numbered (issue 29)."""
        return rules.model_labels([(m.id, m.profile_key, m.name, m.given_name) for m in self.models])


def company_of(session: Session, player_id: int) -> Company | None:
    """A player's company as it is (no lock, never created): for readers such as warbands."""
    return session.exec(reads.COMPANY, params={"player_id": player_id}).first()


def own_company(session: Session, viewer: Viewer) -> Company | None:
    """The viewer's own `company_of`, read once a request (kept on the viewer: issue 37)."""
    assert viewer.player is not None
    player_id = viewer.player.id
    return kept(viewer, "_company", lambda: company_of(session, player_id))


def _company(session: Session, campaign: Campaign, player: Player) -> Company:
    """The player's company, locked for this transaction (created on first use)."""
    company = session.exec(reads.COMPANY_LOCKED, params={"player_id": player.id}).first()
    if company is None:
        company = Company(campaign_id=campaign.id, player_id=player.id)
        session.add(company)
        session.flush()
    return company


def labels_from(models: list[CompanyModel]) -> dict[int, str]:
    """The labels of models read with every other model of their companies (issue 29)."""
    by_company: dict[int, list[tuple[int, str, str, str | None]]] = {}
    for m in models:
        by_company.setdefault(m.company_id, []).append((m.id, m.profile_key, m.name, m.given_name))
    return {k: v for rows in by_company.values() for k, v in rules.model_labels(rows).items()}


def labels_of(session: Session, model_ids) -> dict[int, str]:
    """The labels of some models (issue 29), numbered among every model of their companies:
    one statement. `model_ids` is a list or a select of ids."""
    if isinstance(model_ids, list):
        if not model_ids:
            return {}
        rows = session.exec(reads.LABELS_OF_MODELS, params={"model_ids": model_ids}).all()
    else:
        companies = select(CompanyModel.company_id).where(CompanyModel.id.in_(model_ids))
        rows = session.exec(reads.LABEL_ROWS.where(CompanyModel.company_id.in_(companies))).all()
    by_company: dict[int, list[tuple[int, str, str, str | None]]] = {}
    for company_id, *row in rows:
        by_company.setdefault(company_id, []).append(tuple(row))
    return {k: v for models in by_company.values() for k, v in rules.model_labels(models).items()}


def name_model(session: Session, *, actor: User, campaign_id: int, model_id: int, given_name: str | None) -> CompanyModel:
    """Issue 29: the player names a model of their own company (any phase: a name changes no
    rule); an empty name takes it away."""
    viewer = acting_player(session, actor, campaign_id)
    company = _company(session, viewer.campaign, viewer.player)
    model = _own_row(session, CompanyModel, model_id, company)
    model.given_name = rules.clean_given_name(given_name)
    session.add(model)
    session.flush()
    return model


def _models(session: Session, company_id: int) -> list[CompanyModel]:
    return list(session.exec(reads.MODELS, params={"company_id": company_id}).all())


def _items(session: Session, company_id: int) -> list[CompanyItem]:
    return list(session.exec(reads.ITEMS, params={"company_id": company_id}).all())


def view(session: Session, *, actor: User, campaign_id: int, player_id: int | None = None) -> tuple[Viewer, CompanyView]:
    """R11.2: the company is seen by its player and the GM only."""
    return view_for(session, viewer_for(session, actor, campaign_id), player_id)


def view_for(session: Session, viewer: Viewer, player_id: int | None = None) -> tuple[Viewer, CompanyView]:
    """`view` for a viewer already seated: a page's, read with its login (issue 37)."""
    pid = private_owner(viewer, player_id)
    player = campaign_row(session, Player, pid, viewer.campaign.id)
    company = own_company(session, viewer) if viewer.player is not None and pid == viewer.player.id else company_of(session, pid)
    gold = player.gold - hidden_gold(session, viewer, pid).get(pid, 0) if viewer.sees_balance_of(pid) else None
    if company is None:
        return viewer, CompanyView(player, None, gold=gold)
    return viewer, CompanyView(player, company, _models(session, company.id), _items(session, company.id), gold=gold)


def choose_faction(session: Session, *, actor: User, campaign_id: int, faction: str, catalog: Catalog) -> Company:
    """R3.6: before confirmation, a new faction empties the company and refunds all it cost."""
    viewer = acting_player(session, actor, campaign_id)
    rules.check_shop(viewer.campaign.status, viewer.campaign.phase)
    if faction not in catalog.factions:
        raise DomainError("faction_unknown", faction=faction)
    company = _company(session, viewer.campaign, viewer.player)
    if company.faction == faction:
        return company
    rules.check_faction_change(company.confirmed)
    _none_sent(session, viewer)
    spent = 0
    for row in [*_items(session, company.id), *_models(session, company.id)]:
        spent += row.price
        session.delete(row)
    session.flush()
    if spent:
        gold.credit(
            session,
            campaign=viewer.campaign,
            player_id=viewer.player.id,
            amount=spent,
            kind="sale",
            note=N_("Faction change: %(old)s → %(new)s"),
            params={"old": company.faction, "new": faction},
        )
    company.faction = faction
    session.add(company)
    return company


def _ready_company(session: Session, viewer: Viewer) -> Company:
    rules.check_shop(viewer.campaign.status, viewer.campaign.phase)
    company = _company(session, viewer.campaign, viewer.player)
    if company.faction is None:
        raise DomainError("faction_required")
    return company


def _add_model(session: Session, company: Company, profile, price: int, reward: bool) -> CompanyModel:
    held = {m.profile_key for m in _models(session, company.id)}
    rules.check_unique_profile(profile.unique, profile.name, held, profile.key)
    model = CompanyModel(
        company_id=company.id,
        profile_key=profile.key,
        name=profile.name,
        types=list(profile.types),
        points=profile.points,
        stats=dict(profile.stats),
        special_rules=list(profile.special_rules),
        unique=profile.unique,
        healer=profile.healer,
        price=price,
        reward=reward,
    )
    session.add(model)
    session.flush()
    return model


def _faction_profile(catalog: Catalog, company: Company, key: str):
    profile = catalog.profiles.get(key)
    if profile is None:
        raise DomainError("profile_unknown", profile=key)
    if profile.faction != company.faction:
        raise DomainError("profile_other_faction", name=profile.name)
    return profile


def buy_model(session: Session, *, actor: User, campaign_id: int, profile_key: str, catalog: Catalog) -> Purchase:
    viewer = acting_player(session, actor, campaign_id)
    company = _ready_company(session, viewer)
    profile = _faction_profile(catalog, company, profile_key)
    price = gold_rules.price(profile.points, viewer.campaign.gold_per_point)
    model = _add_model(session, company, profile, price, reward=False)
    entry = gold.pay(
        session, campaign=viewer.campaign, player_id=viewer.player.id, amount=price, kind="purchase", note=profile.name
    )
    return Purchase(model, price, entry.balance_after)


def _own_row(session: Session, cls, row_id: int, company: Company):
    row = row_by_id(session, cls, row_id)
    if row is None or row.company_id != company.id:
        raise DomainError("not_found")
    return row


def sell_model(session: Session, *, actor: User, campaign_id: int, model_id: int) -> Sale:
    """R3.4 refund; R3.9 the model's items go back to the stash."""
    viewer = acting_player(session, actor, campaign_id)
    company = _ready_company(session, viewer)
    model = _own_row(session, CompanyModel, model_id, company)
    _not_sent(session, viewer, [model.id], {model.id: model.name})
    _not_away(session, viewer, [model.id], {model.id: model.name})
    for item in session.exec(reads.ITEMS_OF_MODEL, params={"model_id": model.id}).all():
        item.model_id = None
        session.add(item)
    return _sell(session, viewer, company, model)


# "Is this model away?" is a higher domain's knowledge (ports, wired in app/wiring.py): given
# (session, campaign, player id), {model id: warband name}. Sent: in a warband sent this round
# (warbands, R4.6). Away: in a warband standing away from a hideout (movement, R9.8).
ModelsOut = Callable[[Session, Campaign, int], dict[int, str]]
sent_models = Port[ModelsOut]("models in a sent warband")
away_models = Port[ModelsOut]("models standing away")


def _sent_models(session: Session, viewer: Viewer) -> dict[int, str]:
    sent: dict[int, str] = {}
    for source in sent_models():
        sent.update(source(session, viewer.campaign, viewer.player.id))
    return sent


def _not_sent(session: Session, viewer: Viewer, model_ids: list[int], names: dict[int, str]) -> None:
    """R4.6, R3.9: models of a warband sent this round, and their items, stay as they are."""
    frozen = set(_sent_models(session, viewer)) & set(model_ids)
    if frozen:
        raise DomainError("model_in_sent_warband", model=names.get(min(frozen), ""))


def _not_away(session: Session, viewer: Viewer, model_ids: list[int], names: dict[int, str]) -> None:
    """R9.8: the items of models standing away stay as they are."""
    for source in away_models():
        away = source(session, viewer.campaign, viewer.player.id)
        for model_id in sorted(set(away) & set(model_ids)):
            raise DomainError("model_away", model=names.get(model_id, ""), warband=away[model_id])


def _none_sent(session: Session, viewer: Viewer) -> None:
    """R4.6: a faction change empties the company, so no warband may be out this round."""
    sent = _sent_models(session, viewer)
    if sent:
        raise DomainError("faction_warband_sent", warband=sent[min(sent)])


def _sell(session: Session, viewer: Viewer, company: Company, row: CompanyModel | CompanyItem) -> Sale:
    """R3.4: remove the row and credit the refund of what was paid for it."""
    refund = gold_rules.refund(row.price, confirmed=company.confirmed, sale_loss_percent=viewer.campaign.sale_loss_percent)
    session.delete(row)
    session.flush()
    balance = viewer.player.gold
    if refund:
        balance = gold.credit(
            session, campaign=viewer.campaign, player_id=viewer.player.id, amount=refund, kind="sale", note=row.name
        ).balance_after
    return Sale(row.name, row.price, refund, balance)


def buy_item(session: Session, *, actor: User, campaign_id: int, item_key: str, catalog: Catalog) -> Purchase:
    viewer = acting_player(session, actor, campaign_id)
    company = _ready_company(session, viewer)
    data = catalog.items.get(item_key)
    if data is None:
        raise DomainError("item_unknown", item=item_key)
    rules.check_buyable_item(data.rarity)
    price = gold_rules.price(data.points, viewer.campaign.gold_per_point)
    item = _new_item(session, company, data, price, reward=False)
    entry = gold.pay(session, campaign=viewer.campaign, player_id=viewer.player.id, amount=price, kind="purchase", note=data.name)
    return Purchase(item, price, entry.balance_after)


def _new_item(session: Session, company: Company, data, price: int, reward: bool) -> CompanyItem:
    item = CompanyItem(
        company_id=company.id,
        item_key=data.key,
        name=data.name,
        rarity=data.rarity,
        slot=data.slot,
        points=data.points,
        price=price,
        reward=reward,
    )
    session.add(item)
    session.flush()
    return item


def sell_item(session: Session, *, actor: User, campaign_id: int, item_id: int) -> Sale:
    viewer = acting_player(session, actor, campaign_id)
    company = _ready_company(session, viewer)
    item = _own_row(session, CompanyItem, item_id, company)
    if item.model_id is not None:
        _not_sent(session, viewer, [item.model_id], {item.model_id: item.name})
        _not_away(session, viewer, [item.model_id], {item.model_id: item.name})
    return _sell(session, viewer, company, item)


def assign_item(session: Session, *, actor: User, campaign_id: int, item_id: int, model_id: int | None) -> CompanyItem:
    """R3.9: items move between models and the stash; V8 limits are checked on arrival."""
    viewer = acting_player(session, actor, campaign_id)
    company = _company(session, viewer.campaign, viewer.player)
    item = _own_row(session, CompanyItem, item_id, company)
    moving = [mid for mid in (item.model_id, model_id) if mid is not None]
    names = {m.id: m.name for m in _models(session, company.id)}
    _not_sent(session, viewer, moving, names)
    _not_away(session, viewer, moving, names)
    if model_id is not None:
        model = _own_row(session, CompanyModel, model_id, company)
        carried = [
            rules.Carried(i.slot, i.rarity) for i in _items(session, company.id) if i.model_id == model.id and i.id != item.id
        ]
        try:
            rules.check_item(model.types, carried, rules.Carried(item.slot, item.rarity), model.name)
        except DomainError as exc:
            if "slot" in exc.params:
                exc.params["slot"] = Msg(SLOT_NAMES.get(exc.params["slot"], exc.params["slot"]))
            raise
    item.model_id = model_id
    session.add(item)
    return item


def confirm(session: Session, *, actor: User, campaign_id: int) -> Company:
    viewer = acting_player(session, actor, campaign_id)
    company = _company(session, viewer.campaign, viewer.player)
    rules.check_confirm(company.confirmed, [m.types for m in _models(session, company.id)])
    company.confirmed, company.confirmed_at = True, utcnow()
    session.add(company)
    return company


def grant_reward(
    session: Session,
    *,
    actor: User,
    campaign_id: int,
    player_id: int,
    catalog: Catalog,
    item_key: str | None = None,
    profile_key: str | None = None,
) -> CompanyItem | CompanyModel:
    """R3.7: the GM grants an item (Unique ones too) or a model; it costs the player nothing."""
    viewer = gm_viewer(session, actor, campaign_id)
    if (item_key is None) == (profile_key is None):
        raise DomainError("reward_needs_one")
    player = campaign_row(session, Player, player_id, campaign_id)
    company = _company(session, viewer.campaign, player)
    if item_key is not None:
        data = catalog.items.get(item_key)
        if data is None:
            raise DomainError("item_unknown", item=item_key)
        audit.record(session, viewer.campaign, actor, "reward_given", f"player:{player_id}", after={"item": item_key})
        return _new_item(session, company, data, 0, reward=True)
    if company.faction is None:
        raise DomainError("faction_required")
    audit.record(session, viewer.campaign, actor, "reward_given", f"player:{player_id}", after={"model": profile_key})
    return _add_model(session, company, _faction_profile(catalog, company, profile_key), 0, reward=True)
