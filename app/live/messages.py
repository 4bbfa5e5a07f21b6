"""What a stream says about each event it may tell (R11.4): the event's public facts, and a
short message in the reader's language for the one it concerns ("a result waits for your
confirmation"). Everyone else who may see the event gets it without a message: their page
refreshes the parts that changed, quietly."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from sqlmodel import Session, select

from app.battles import rules as battle_rules
from app.battles.models import Battle, BattleConfirmation, BattleWarband
from app.campaigns import rules as campaign_rules
from app.campaigns.service import nicknames
from app.campaigns.terms import campaign_words
from app.core.errors import N_
from app.live.models import LiveEvent
from app.live.seen import live_events_seen_by
from app.maps.models import Place
from app.visibility import Viewer

TEXTS = {
    "started": N_("The campaign has begun: round %(round)s, %(phase)s."),
    "phase": N_("Round %(round)s: %(phase)s."),
    "round_ended": N_("Round %(ended)s is over. Round %(round)s begins: %(phase)s."),
    "finished": N_("The campaign is over."),
    "hideouts": N_("Choose your hideout: the GM opened the hideouts."),
    "battles": N_("The battles of round %(round)s are announced."),
    "result_reported": N_("A result waits for your confirmation: the battle at %(place)s."),
    "result_disputed": N_("The result of the battle at %(place)s is disputed."),
    "result_decided": N_("The result of the battle at %(place)s is confirmed."),
    "result_resolved": N_("The result of the battle at %(place)s was decided by the GM."),
    "settlement_closed": N_("%(player)s closed the settlement of a warband."),
    "settlement_reopened": N_("The GM reopened your settlement."),
    "ransom": N_("A prisoner waits for your price: %(model)s of %(player)s."),
    "letter": N_("New letter from %(sender)s."),
    "transfer": N_("%(player)s sent you %(amount)s gold."),
    "guild_request": N_("%(player)s asks to join %(guild)s."),
    "guild_invitation": N_("%(guild)s invites you to join."),
    "alliance": N_("%(player)s invites you to a %(alliance_of)s."),
    "twilight": N_("Twilight: places waiting for your choice: %(count)s."),
    # An order undone (app/warbands/undo.py), told to its owner only.
    "order_gm": N_("The GM undid the order of %(warband)s."),
    "order_blockade": N_("%(event)s is now a blockade: the order of %(warband)s is undone."),
    "order_limit": N_("%(event)s now takes warbands of %(limit)s points at most: the order of %(warband)s is undone."),
    "order_ended": N_("%(event)s has ended: the order of %(warband)s is undone."),
}
THE_GM = N_("the GM")
# What a toast offers for a message that asks something of its reader (issue 29: confirming
# from the toast is one tap): the page form's address and a link to the page, with their words.
CONFIRM, OPEN = N_("Confirm"), N_("Open")


@dataclass
class Told:
    event: LiveEvent
    payload: dict


def tell(session: Session, viewer: Viewer, events: list[LiveEvent], gettext) -> list[Told]:
    """Each event this viewer may see, as the JSON the stream sends."""
    seen = live_events_seen_by(session, viewer, events)
    if not seen:
        return []
    campaign = viewer.campaign
    me = viewer.player.id if viewer.player else None
    battles = _battles(session, [ev.subject_id for ev, _ in seen if ev.kind == "result" and ev.subject_id])
    names: dict[int, str] | None = None

    def name(player_id: int | None) -> str:
        nonlocal names
        if player_id is None:
            return gettext(THE_GM)
        if names is None:
            names = nicknames(session, campaign.id)
        return names.get(player_id, "?")

    words: Mapping[str, str] | None = None  # the campaign's guild words, translated once
    told = []
    for ev, subject in seen:
        data = dict(ev.data or {})
        key, params = _message(ev, data, subject, viewer, me, battles, name)
        if key is not None and ev.actor_user_id != viewer.user.id:
            params = {
                k: (gettext(campaign_rules.PHASE_NAMES[v]) if k == "phase" and v in campaign_rules.PHASE_NAMES else v)
                for k, v in params.items()
            }
            words = words if words is not None else campaign_words(campaign, gettext)
            message = gettext(TEXTS[key]) % {**words, **params}
        else:
            message = None
        payload = {"kind": ev.kind, "campaign_id": ev.campaign_id, **data, "message": message}
        if ev.subject_id is not None:
            payload["subject_id"] = ev.subject_id
        if message is not None and key == "result_reported":
            battle = f"/campaigns/{campaign.id}/battles/{ev.subject_id}"
            payload["ask"] = {
                "post": f"{battle}/confirm",
                "post_label": gettext(CONFIRM),
                "open": f"{battle}#result",
                "open_label": gettext(OPEN),
            }
        told.append(Told(ev, payload))
    return told


def _message(ev, data, subject, viewer, me, battles, name) -> tuple[str | None, dict]:
    kind = ev.kind
    if kind == "phase":
        step = data.get("step", "phase")
        if step == "phase" and data.get("phase") == "battles":
            return None, {}  # the "battles" event that follows says it
        if step == "deadline":
            return None, {}  # the head shows the new time left; the chronicle says it
        return step, {"round": data.get("round"), "phase": data.get("phase"), "ended": data.get("ended")}
    if kind == "battles":
        return "battles", {"round": data.get("round")}
    if kind == "result":
        place, players, asked = battles.get(ev.subject_id, ("?", set(), set()))
        status = data.get("status")
        if status == "reported" and me in asked:
            return "result_reported", {"place": place}
        if status == "disputed" and (me in players or viewer.is_gm):
            return "result_disputed", {"place": place}
        if status in ("confirmed", "resolved") and me in players:
            return ("result_resolved" if status == "resolved" else "result_decided"), {"place": place}
        return None, {}
    if kind == "settlement":
        if data.get("action") == "closed" and viewer.is_gm:
            return "settlement_closed", {"player": name(data.get("player_id"))}
        if data.get("action") == "reopened" and me == data.get("player_id"):
            return "settlement_reopened", {}
        return None, {}
    if kind == "ransom":
        if me is not None and me == data.get("captor_player_id"):
            return "ransom", {"model": data.get("model", ""), "player": name(data.get("owner_player_id"))}
        return None, {}
    if kind == "letter":
        if subject.to_player_id == me and (me is not None or viewer.is_gm):
            return "letter", {"sender": name(subject.from_player_id)}
        return None, {}
    if kind == "transfer":
        if subject.to_player_id == me:
            return "transfer", {"player": name(subject.from_player_id), "amount": subject.amount}
        return None, {}
    if kind == "guild":
        request, guild = subject
        if request.kind == "request" and guild.founder_player_id == me:
            return "guild_request", {"player": name(request.player_id), "guild": guild.name}
        if request.kind == "invitation" and request.player_id == me:
            return "guild_invitation", {"guild": guild.name}
        return None, {}
    if kind == "alliance":
        # Published when it is made: whoever else sees it then is invited.
        if me is not None and me != subject.initiator_player_id:
            return "alliance", {"player": name(subject.initiator_player_id)}
        return None, {}
    if kind == "order":
        if me is not None and me == data.get("player_id") and data.get("reason") in ("gm", "blockade", "limit", "ended"):
            return "order_" + data["reason"], {k: data.get(k) for k in ("warband", "event", "limit")}
        return None, {}
    if kind == "twilight":
        return ("twilight", {"count": data.get("count", 0)}) if data.get("count") else (None, {})
    return None, {}


def _battles(session: Session, battle_ids: list[int]) -> dict[int, tuple[str, set[int], set[int]]]:
    """Battle id -> (place name, the players who fight it, those asked to confirm its entered
    result now: a player of each side still to confirm, never the reporter's side, R6.8).
    Public from Battles on."""
    if not battle_ids:
        return {}
    ids = sorted(set(battle_ids))
    rows = session.exec(
        select(Battle.id, Place.name, Battle.status, Battle.reported_by_player_id, BattleWarband.player_id, BattleWarband.side)
        .join(Place, Place.id == Battle.place_id)
        .outerjoin(BattleWarband, BattleWarband.battle_id == Battle.id)
        .where(Battle.id.in_(ids))
    ).all()
    confirmed: dict[int, set[int]] = {}
    for battle_id, player_id in session.exec(
        select(BattleConfirmation.battle_id, BattleConfirmation.player_id).where(BattleConfirmation.battle_id.in_(ids))
    ).all():
        confirmed.setdefault(battle_id, set()).add(player_id)
    places: dict[int, str] = {}
    side_of: dict[int, dict[int, int]] = {}
    reporting: dict[int, int | None] = {}
    for battle_id, place, status, reporter, player_id, side in rows:
        places[battle_id] = place
        side_of.setdefault(battle_id, {})
        if player_id is not None:
            side_of[battle_id][player_id] = side
        reporting[battle_id] = reporter if status == "reported" else None
    return {
        b: (
            places[b],
            set(side_of[b]),
            battle_rules.asked_to_confirm(side_of[b], reporting[b], confirmed.get(b, ())) if reporting[b] is not None else set(),
        )
        for b in places
    }
