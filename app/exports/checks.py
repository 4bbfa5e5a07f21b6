"""What an imported document must keep beyond its rows' types (issue 28): whatever the API
would refuse for the same data is refused here, by the API's own schemas (CampaignPatch,
ClockSettingsIn, and each row's input schema: ROW_FIELDS) and rules (maps, campaigns,
chronicle, gold, events, and the catalog's names: `against_catalog`), before a row is written.
The document is hostile until checked: registration is open, so anyone may send one."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, TypeAdapter, ValidationError

from app.battles.schemas import DisputeIn
from app.campaigns import rules as campaign_rules
from app.campaigns.models import Campaign
from app.campaigns.schemas import CampaignPatch
from app.catalog.catalog import Catalog
from app.chronicle.texts import params_problem
from app.clock.schemas import ClockSettingsIn
from app.companies.schemas import FactionIn, ModelNameIn
from app.core.db import table_of
from app.core.errors import DomainError, message_for
from app.events import rules as event_rules
from app.events.schemas import EventIn
from app.exports.parts import BY_NAME, PARTS
from app.gold import rules as gold_rules
from app.gold.notes import NOTES
from app.gold.schemas import TransferIn
from app.guilds.schemas import GuildIn
from app.maps import rules as map_rules
from app.maps.schemas import PathIn, PlaceIn, PlacePatch
from app.settlement.schemas import RansomOfferIn
from app.warbands.schemas import WarbandIn

Rows = dict[str, list[dict]]
# The settings a GM changes with a PATCH; modules, guild and settlement rules go through the
# rules' own normalizers when the campaign is made (reading.py), as a PATCH's do.
SETTINGS = tuple(name for name in CampaignPatch.model_fields if name not in ("modules", "guild", "settlement_rules"))


class Reason:
    """A rule's own refusal as the `reason` of `import_rule`, in the reader's language."""

    def __init__(self, exc: DomainError) -> None:
        self.exc = exc

    def text(self, gettext) -> str:
        return message_for(self.exc.code, self.exc.params, gettext)


def _rule(part: str, row: Any, exc: DomainError) -> DomainError:
    return DomainError("import_rule", part=part, row=row, reason=Reason(exc))


def _where(exc: ValidationError, prefix: str) -> str:
    return ".".join([prefix, *(str(x) for x in exc.errors()[0]["loc"])]).strip(".") or "?"


def _schema(schema: type[BaseModel], data: Any, part: str, row: int, prefix: str = "") -> None:
    """`data` as the API's own input schema would take it (strictly: a stored number is a number)."""
    try:
        schema.model_validate(data, strict=True)
    except ValidationError as exc:
        raise DomainError("import_row_invalid", part=part, row=row, field=_where(exc, prefix)) from None


def check(flat: Rows, campaign: dict) -> None:
    """Refuses the document with the first rule it breaks; the checks read numbers only."""
    _settings(campaign, players=len(flat["players"]))
    _rows(flat)
    for row in flat["events"]:
        if row.get("clock") is not None:
            _schema(ClockSettingsIn, row["clock"], "events", row["id"], "clock")
    _places(flat["places"])
    _paths(flat["places"], flat["paths"])
    _chronicle(flat["chronicle"])
    _ledger(flat["ledger"])


def _settings(campaign: dict, *, players: int) -> None:
    _schema(CampaignPatch, {k: campaign[k] for k in SETTINGS if k in campaign}, "campaign", 1)
    if campaign.get("clock"):
        _schema(ClockSettingsIn, campaign["clock"], "campaign", 1, "clock")
    status, phase, round_ = campaign.get("status", "setup"), campaign.get("phase"), campaign.get("round", 0)
    # A running campaign is always in a phase of a round from 1 up; before the start, in none.
    if (status == "running" and phase not in campaign_rules.PHASES) or (status in ("setup", "hideouts") and phase is not None):
        raise DomainError("import_row_invalid", part="campaign", row=1, field="phase")
    if status == "running" and (not isinstance(round_, int) or isinstance(round_, bool) or round_ < 1):
        raise DomainError("import_row_invalid", part="campaign", row=1, field="round")
    try:
        campaign_rules.check_max_players(campaign.get("max_players", Campaign.model_fields["max_players"].default), players)
    except DomainError as exc:
        raise _rule("campaign", 1, exc) from None


def _number(value: Any) -> int | None:
    """A reference as a number, or None (a wrong one is refused later, by the reference check)."""
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _places(rows: list[dict]) -> None:
    parents = {row["id"]: _number(row.get("parent_id")) for row in rows}
    try:
        map_rules.check_tree(parents, {row["id"]: bool(row.get("has_map")) for row in rows})
    except DomainError as exc:
        raise _rule("places", exc.params.get("place_id"), exc) from None
    for row in rows:
        if row.get("entry") and parents[row["id"]] is None:
            raise _rule("places", row["id"], DomainError("entry_needs_parent"))


def _paths(places: list[dict], rows: list[dict]) -> None:
    parent_of = {row["id"]: _number(row.get("parent_id")) for row in places}
    existing: set[frozenset[int]] = set()
    for row in rows:
        a, b = _number(row.get("from_place_id")), _number(row.get("to_place_id"))
        if a is None or b is None:
            continue
        try:
            map_rules.check_path(parent_of.get(a), parent_of.get(b), a, b, existing)
        except DomainError as exc:
            raise _rule("paths", row["id"], exc) from None
        existing.add(frozenset((a, b)))


def _kind(value: Any) -> str:
    return value[:40] if isinstance(value, str) else repr(value)[:40]


def _chronicle(rows: list[dict]) -> None:
    for row in rows:
        problem = params_problem(row.get("kind"), row.get("params", {}))
        if problem == "kind":
            raise DomainError("import_unknown_kind", part="chronicle", row=row["id"], kind=_kind(row.get("kind")))
        if problem:
            raise DomainError("import_row_invalid", part="chronicle", row=row["id"], field=problem)


def _ledger(rows: list[dict]) -> None:
    """A ledger entry's kind is one of gold's; a note with parameters is one gold writes."""
    for row in rows:
        kind = row.get("kind")
        if not isinstance(kind, str) or kind not in gold_rules.KINDS:
            raise DomainError("import_unknown_kind", part="ledger", row=row["id"], kind=_kind(kind))
        params, note = row.get("params"), row.get("note")
        if params and (not isinstance(params, dict) or not isinstance(note, str) or note not in NOTES):
            raise DomainError("import_row_invalid", part="ledger", row=row["id"], field="note")


# --- rows: each column a user sets through the API, checked by the API schema's own field -----


def _same(schema: type[BaseModel], *names: str) -> tuple[tuple[str, type[BaseModel], str], ...]:
    return tuple((name, schema, name) for name in names)


# part -> (column, API schema, its field). References are document numbers, checked when read.
ROW_FIELDS: dict[str, tuple[tuple[str, type[BaseModel], str], ...]] = {
    "places": _same(PlaceIn, "name", "description", "income", "hideout_slot", "x", "y", "entry") + _same(PlacePatch, "has_map"),
    "paths": _same(PathIn, "one_way"),
    "events": _same(EventIn, "title", "text", "duration", "scenario", "other_mission", "roles", "blockade", "points_limit")
    + _same(EventIn, "reward", "notes"),
    "companies": _same(FactionIn, "faction"),
    "company_models": _same(ModelNameIn, "given_name"),
    "warbands": _same(WarbandIn, "name") + (("mercenary_key", WarbandIn, "mercenary"),),
    "battles": (("dispute_reason", DisputeIn, "reason"),),
    # A battle's clock keeps the settings it was started with (the campaign's or the event's).
    "battle_clocks": _same(ClockSettingsIn, "minutes_per_side", "max_turns", "extra_turn_on"),
    "transfers": _same(TransferIn, "amount", "note"),
    "ransoms": _same(RansomOfferIn, "price"),
    "guilds": _same(GuildIn, "name"),
}


def _adapter(schema: type[BaseModel], name: str) -> TypeAdapter:
    field = schema.model_fields[name]
    annotation: Any = Annotated[(field.annotation, *field.metadata)] if field.metadata else field.annotation
    return TypeAdapter(annotation)


_ADAPTERS = {(part, column): _adapter(schema, name) for part, found in ROW_FIELDS.items() for column, schema, name in found}


def _label(part: str) -> str:
    parent = BY_NAME[part].parent
    return f"{parent}.{BY_NAME[part].key}" if parent else part


def _rows(flat: Rows) -> None:
    """Each row's settable columns as the API would take them (strictly: a stored number is a
    number). A null where the table allows one (no faction chosen yet, no mercenary) is the
    table's to judge, as is a column the row leaves out (its default)."""
    for part in PARTS:
        nullable = {c.name for c in table_of(part.model).columns if c.nullable}
        for column, _schema, _name in ROW_FIELDS.get(part.name, ()):
            adapter = _ADAPTERS[(part.name, column)]
            for row in flat[part.name]:
                if column not in row or (row[column] is None and column in nullable):
                    continue
                try:
                    adapter.validate_python(row[column], strict=True)
                except ValidationError:
                    raise DomainError("import_row_invalid", part=_label(part.name), row=row["id"], field=column) from None


def against_catalog(flat: Rows, catalog: Catalog) -> None:
    """The names a row takes from this server's catalog, as the API checks them: an event's
    scenario (with R5.2's rule on Other mission), a company's faction, a warband's mercenary."""
    scenarios = set(catalog.scenarios)
    for row in flat["events"]:
        try:
            event_rules.check_scenario(row.get("scenario"), row.get("other_mission"), scenarios)
        except DomainError as exc:
            raise _rule("events", row["id"], exc) from None
    for row in flat["companies"]:
        if row.get("faction") is not None and row["faction"] not in catalog.factions:
            raise _rule("companies", row["id"], DomainError("faction_unknown", faction=row["faction"]))
    for row in flat["warbands"]:
        if row.get("mercenary_key") is not None and row["mercenary_key"] not in catalog.mercenaries:
            raise _rule("warbands", row["id"], DomainError("mercenary_unknown", mercenary=row["mercenary_key"]))
