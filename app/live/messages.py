"""What a stream says about each event it may tell (R11.4): the event's public facts, and a
short message in the reader's language for the one it concerns ("a result waits for your
confirmation"). Everyone else who may see the event gets it without a message: their page
refreshes the parts that changed, quietly."""
from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import Session, select

from app.battles.models import Battle, BattleWarband
from app.campaigns import rules as campaign_rules
from app.campaigns.service import nicknames
from app.campaigns.terms import campaign_words
from app.core.errors import N_
from app.live.models import LiveEvent
from app.maps.models import Place
from app.visibility import Viewer, live_events_seen_by

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
    "settlement_closed": N_("%(player)s closed the settlement of a warband."),
    "settlement_reopened": N_("The GM reopened your settlement."),
    "letter": N_("New letter from %(sender)s."),
    "transfer": N_("%(player)s sent you %(amount)s gold."),
    "guild_request": N_("%(player)s asks to join %(guild)s."),
    "guild_invitation": N_("%(guild)s invites you to join."),
    "alliance": N_("%(player)s invites you to a %(alliance_of)s."),
    "twilight": N_("Twilight: places waiting for your choice: %(count)s."),
}
THE_GM = N_("the GM")


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

    words: dict | None = None  # the campaign's guild words, translated once
    told = []
    for ev, subject in seen:
        data = dict(ev.data or {})
        key, params = _message(ev, data, subject, viewer, me, battles, name)
        if key is not None and ev.actor_user_id != viewer.user.id:
            params = {k: (gettext(campaign_rules.PHASE_NAMES[v]) if k == "phase" and v in campaign_rules.PHASE_NAMES else v)
                      for k, v in params.items()}
            words = words if words is not None else campaign_words(campaign, gettext)
            message = gettext(TEXTS[key]) % {**words, **params}
        else:
            message = None
        payload = {"kind": ev.kind, "campaign_id": ev.campaign_id, **data, "message": message}
        if ev.subject_id is not None:
            payload["subject_id"] = ev.subject_id
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
        place, players = battles.get(ev.subject_id, ("?", set()))
        status = data.get("status")
        if status == "reported" and me in players:
            return "result_reported", {"place": place}
        if status == "disputed" and (me in players or viewer.is_gm):
            return "result_disputed", {"place": place}
        if status in ("confirmed", "resolved") and me in players:
            return "result_decided", {"place": place}
        return None, {}
    if kind == "settlement":
        if data.get("action") == "closed" and viewer.is_gm:
            return "settlement_closed", {"player": name(data.get("player_id"))}
        if data.get("action") == "reopened" and me == data.get("player_id"):
            return "settlement_reopened", {}
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
    if kind == "twilight":
        return ("twilight", {"count": data.get("count", 0)}) if data.get("count") else (None, {})
    return None, {}


def _battles(session: Session, battle_ids: list[int]) -> dict[int, tuple[str, set[int]]]:
    """Battle id -> (place name, the players who fight it): public from Battles on."""
    if not battle_ids:
        return {}
    ids = sorted(set(battle_ids))
    rows = session.exec(select(Battle.id, Place.name, BattleWarband.player_id).join(Place, Place.id == Battle.place_id)
                        .outerjoin(BattleWarband, BattleWarband.battle_id == Battle.id).where(Battle.id.in_(ids))).all()
    found: dict[int, tuple[str, set[int]]] = {}
    for battle_id, place, player_id in rows:
        found.setdefault(battle_id, (place, set()))[1].add(player_id)
    return found
