"""What an imported document must keep beyond its rows' types (issue 28): whatever the API
would refuse for the same data is refused here, by the API's own schemas (CampaignPatch,
ClockSettingsIn) and rules (maps, campaigns, chronicle, gold), before a row is written. The
document is hostile until checked: registration is open, so anyone may send one."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ValidationError

from app.campaigns import rules as campaign_rules
from app.campaigns.models import Campaign
from app.campaigns.schemas import CampaignPatch
from app.chronicle.texts import params_problem
from app.clock.schemas import ClockSettingsIn
from app.core.errors import DomainError, message_for
from app.gold import rules as gold_rules
from app.gold.notes import NOTES
from app.maps import rules as map_rules

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
