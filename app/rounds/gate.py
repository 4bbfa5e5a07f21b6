"""The Twilight gate (R7.2, R6.8): Twilight opens once every battle of the round is confirmed
or resolved and every settlement closed; the refusal names who it waits for."""

from __future__ import annotations

from sqlmodel import Session

from app.battles import service as battles
from app.campaigns import service as campaigns
from app.campaigns.models import Campaign
from app.core.errors import DomainError
from app.maps import service as maps
from app.rounds import rules
from app.settlement import service as settlement


def results_in(views: list[battles.BattleView]) -> bool:
    """Every battle of these confirmed or resolved: Twilight's first condition (R7.2)."""
    return all(v.battle.status in settlement.DECIDED for v in views)


def missing_for_twilight(
    session: Session, campaign: Campaign, views: list[battles.BattleView] | None = None
) -> list[rules.Missing]:
    """Every battle of the round confirmed or resolved, every settlement closed; `views`: the
    round's battles when the caller has read them already (who fights, not with what)."""
    if views is None:
        views = battles.battles_of(session, campaign, rosters=False)
    missing = []
    for v in views:
        if v.battle.status not in settlement.DECIDED:
            if v.battle.status == "disputed":
                who: tuple[int, ...] = ()  # the GM decides
            elif v.battle.status == "reported":
                # R6.8: the players of the sides still to confirm (never the reporter's side).
                who = tuple(sorted(v.asked_to_confirm())) or tuple(
                    p for p in v.participants if p != v.battle.reported_by_player_id
                )
            else:
                who = tuple(v.participants)
            missing.append(rules.Missing("result", v.battle.id, v.battle.place_id, who))
    for p in settlement.pending(session, campaign, views):
        missing.append(rules.Missing("settlement", p.battle_id, p.place_id, (p.player_id,), p.warband))
    return missing


def _missing_params(session: Session, campaign: Campaign, missing: list[rules.Missing]) -> tuple[dict, list[dict]]:
    """What the refusal names: the places and players Twilight waits for."""
    names = campaigns.nicknames(session, campaign.id)
    labels = maps.labels(session, campaign.id)
    results, disputes, settlements, details = [], [], [], []
    for m in missing:
        who = ", ".join(names.get(p, "?") for p in m.player_ids)
        place = labels.get(m.place_id, "")
        if m.kind == "result" and not m.player_ids:
            disputes.append(place)
        elif m.kind == "result":
            results.append(f"{place} ({who})")
        else:
            settlements.append(f"{who} ({m.warband}, {place})")
        details.append(
            {
                "code": "twilight_waits_for_result" if m.kind == "result" else "twilight_waits_for_settlement",
                "battle_id": m.battle_id,
                "place_id": m.place_id,
                "place": place,
                "player_ids": list(m.player_ids),
                "nicknames": [names.get(p, "?") for p in m.player_ids],
                "warband": m.warband,
            }
        )
    params = {
        "results": "; ".join(results) or "—",
        "disputes": "; ".join(disputes) or "—",
        "settlements": "; ".join(settlements) or "—",
    }
    return params, details


def check_twilight_gate(session: Session, campaign: Campaign) -> None:
    missing = missing_for_twilight(session, campaign)
    if missing:
        params, details = _missing_params(session, campaign, missing)
        raise DomainError("twilight_gate", details=details, **params)
