"""Pure rules of the campaign lifecycle (R1.6), roster (R1.4, R1.5) and phases (R2.1-R2.3)."""

from __future__ import annotations

from dataclasses import dataclass

from app.core.errors import N_, DomainError, Msg

STATUSES = ("setup", "hideouts", "running", "finished")
STATUS_NAMES = {
    "setup": N_("Setup"),
    "hideouts": N_("Hideout selection"),
    "running": N_("Running"),
    "finished": N_("Finished"),
}
PHASES = ("preparation", "orders", "battles", "settlement", "twilight")
PHASE_NAMES = {
    "preparation": N_("Preparation"),
    "orders": N_("Orders"),
    "battles": N_("Battles"),
    "settlement": N_("Settlement"),
    "twilight": N_("Twilight"),
}
GUILD_TERMS = ("guild", "consortium", "group", "brotherhood", "cartel", "alliance")
MODULE_KEYS = ("guilds", "mission_alliances", "letters", "gold_transfers", "multi_band_battles", "paths", "movement")
MIN_PLAYERS = 2
MAX_PLAYERS = 40
WIZARD_STEPS = 6

DEFAULT_MODULES = {
    "guilds": True,
    "mission_alliances": True,
    "letters": True,
    "gold_transfers": True,
    "multi_band_battles": True,
    "battle_size_limit": None,
    "paths": False,
    "movement": False,
}
DEFAULT_GUILD = {
    "term": "guild",
    "level_cost": 50,
    "level_income": 10,
    "max_level": 3,
    "request_fee": 5,
    "entry_fee": 10,
}
# Settings fixed once the campaign is running (R9.1; manual ch. 9: modules, guild amounts and
# the battle limit — not the mission-alliance fee).
LOCKED_WHEN_RUNNING = ("modules", "guild")

# Each lifecycle move the GM may make, and the status it needs.
STATUS_MOVES = {("setup", "hideouts"), ("hideouts", "running"), ("running", "finished")}


def status_name(status: str) -> Msg:
    return Msg(STATUS_NAMES[status])


def phase_name(phase: str) -> Msg:
    return Msg(PHASE_NAMES[phase])


def check_status_move(current: str, target: str) -> None:
    if target not in STATUSES:
        raise DomainError("field_choice", choices=", ".join(STATUSES[1:]))
    if current == "finished":
        raise DomainError("campaign_read_only")
    if (current, target) not in STATUS_MOVES:
        raise DomainError("status_transition", status=status_name(current), target=status_name(target))


def check_enter_hideouts(players: int, free_flagged_places: int) -> None:
    """R1.4/R1.5: the roster closes; there must be a free ⚑ place for every player."""
    if players < MIN_PLAYERS:
        raise DomainError("too_few_players", min=MIN_PLAYERS, count=players)
    if free_flagged_places < players:
        raise DomainError("too_few_hideout_places", places=free_flagged_places, players=players)


def check_start(players_without_hideout: list[str]) -> None:
    """R1.5: the GM starts the campaign when every player holds a hideout."""
    if players_without_hideout:
        raise DomainError("hideouts_missing", missing=", ".join(players_without_hideout))


@dataclass(frozen=True)
class PhaseMove:
    round: int
    phase: str


def next_phase(phase: str) -> str | None:
    i = PHASES.index(phase)
    return PHASES[i + 1] if i + 1 < len(PHASES) else None


def check_phase_move(status: str, current: str | None, target: str) -> None:
    """R2.2: forward one phase at a time; Orders -> Preparation is the only way back."""
    if status == "finished":
        raise DomainError("campaign_read_only")
    if status != "running" or current is None:
        raise DomainError("not_running")
    if target not in PHASES:
        raise DomainError("phase_unknown", phase=target)
    if target == current:
        raise DomainError("phase_same", phase=phase_name(current))
    if (current, target) == ("orders", "preparation"):
        return
    ci, ti = PHASES.index(current), PHASES.index(target)
    if ti < ci:
        raise DomainError("phase_backward", current=phase_name(current), target=phase_name(target))
    if ti != ci + 1:
        raise DomainError("phase_skip", current=phase_name(current), next=phase_name(PHASES[ci + 1]), target=phase_name(target))


def check_end_round(status: str, phase: str | None, round_: int, requested: int) -> PhaseMove:
    """R2.3: only in Twilight, and only for the round named, so a repeat cannot pay twice."""
    if status == "finished":
        raise DomainError("campaign_read_only")
    if status != "running" or phase is None:
        raise DomainError("not_running")
    if requested != round_:
        raise DomainError("end_round_mismatch", requested=requested, round=round_)
    if phase != "twilight":
        raise DomainError("end_round_phase", phase=phase_name(phase))
    return PhaseMove(round=round_ + 1, phase="preparation")


def start_move() -> PhaseMove:
    """R1.6: starting opens round 1 in Preparation."""
    return PhaseMove(round=1, phase="preparation")


def shop_open(status: str, phase: str | None) -> bool:
    """R3.3, used by the dashboard's advice now and by the shop later."""
    if status in ("setup", "hideouts"):
        return True
    return status == "running" and phase in ("preparation", "orders")


def check_max_players(value: int, roster: int) -> None:
    if value < MIN_PLAYERS:
        raise DomainError("field_too_small", min=MIN_PLAYERS)
    if value > MAX_PLAYERS:
        raise DomainError("field_too_large", max=MAX_PLAYERS)
    if value < roster:
        raise DomainError("max_players_below_roster", count=roster)


def normalize_modules(current: dict, changes: dict) -> dict:
    modules = {**DEFAULT_MODULES, **current}
    for key, value in changes.items():
        if key == "battle_size_limit":
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 3):
                raise DomainError("battle_size_limit_invalid")
            modules[key] = value
        elif key in MODULE_KEYS and value is not None:  # null keeps the setting (API.md: a PATCH changes what it names)
            modules[key] = bool(value)
    return modules


def normalize_guild(current: dict, changes: dict) -> dict:
    guild = {**DEFAULT_GUILD, **current}
    for key, value in changes.items():
        if value is None:  # null keeps the setting
            continue
        if key == "term":
            if value not in GUILD_TERMS:
                raise DomainError("guild_term_invalid", choices=", ".join(GUILD_TERMS))
            guild[key] = value
        elif key in DEFAULT_GUILD:
            if isinstance(value, bool) or not isinstance(value, int) or value < (1 if key == "max_level" else 0):
                raise DomainError("field_too_small", min=1 if key == "max_level" else 0)
            guild[key] = value
    return guild


def locked_changes(status: str, old: dict, new: dict) -> list[str]:
    """Which locked settings a change touches once the campaign runs (R9.1)."""
    if status not in ("running", "finished"):
        return []
    return [key for key in LOCKED_WHEN_RUNNING if key in new and new[key] != old.get(key)]


# --- "what to do now" on the dashboard --------------------------------------------

ADVICE_TEXTS = {
    "gm_finish_setup": N_("Finish setting up the campaign (step %(step)s of 6)."),
    "gm_add_hideout_places": N_("Add places with the hideout flag ⚑: one for each player at least."),
    "gm_invite": N_("Invite players by their nicknames."),
    "gm_open_hideouts": N_("When everybody has joined, close the roster and open hideout selection."),
    "gm_wait_hideouts": N_("Wait until every player has chosen a hideout, then start the campaign."),
    "gm_start": N_("Every player holds a hideout: start the campaign."),
    "gm_paths_missing": N_(
        "Paths are on, but %(places)s join no path: a warband there could go nowhere else. Draw paths in the map editor."
    ),
    "gm_preparation": N_("Add events to places, then open Orders."),
    "gm_orders": N_("Players are sending warbands. Open Battles when all orders are in."),
    "gm_battles": N_("Battles are being played. Open Settlement when the results are in."),
    "gm_battles_done": N_("Every result is in: open Settlement."),
    "gm_settlement": N_("Players settle their battles. Open Twilight when they are done."),
    "gm_settlement_done": N_("Every settlement is closed: open Twilight."),
    "gm_twilight": N_("Check who takes which place, then end the round."),
    "player_wait_setup": N_("The game master is preparing the campaign. Hideout selection comes next."),
    "player_shop_open": N_("The shop is already open: choose your faction, buy models and confirm your company."),
    "player_confirm_company": N_("The shop is already open: buy models and confirm your company when it is ready."),
    "player_choose_hideout": N_("Choose your hideout: claim a free place with the ⚑ flag."),
    "player_wait_hideouts": N_("Your hideout is chosen. Waiting for the others and for the game master to start."),
    "player_preparation": N_("Buy models and items, and build your warbands."),
    "player_orders": N_("Send your warbands to events on the map — in secret."),
    "player_orders_done": N_("Every warband of yours is sent. Battles come next."),
    "player_battles": N_("Play your battles at the table and enter the results."),
    "player_battles_done": N_("Nothing waits for you in Battles now. Settlement comes next."),
    "player_settlement": N_("Settle injuries, experience and promotions of your warbands."),
    "player_settlement_done": N_("Nothing is left for you to settle. Twilight comes next."),
    "player_twilight": N_("Twilight: the winners take their places. The round ends soon."),
    "finished": N_("The campaign is finished. The chronicle keeps its story."),
}


# A phase's line, and the step that, once done, turns it into its "_done" line.
STEPS_DONE = {
    "player_orders": "orders_sent",
    "player_battles": "results_in",
    "player_settlement": "settled",
    "gm_battles": "results_in",
    "gm_settlement": "settled",
}


def advice(
    *,
    status: str,
    phase: str | None,
    is_gm: bool,
    setup_complete: bool,
    wizard_step: int,
    players: int,
    flagged_places: int,
    has_hideout: bool,
    all_have_hideouts: bool,
    pathless: tuple[str, ...] = (),
    is_player: bool = False,
    done: frozenset[str] = frozenset(),
) -> list[tuple[str, dict]]:
    """What the viewer should do next, as (text key, parameters). `done`: the steps the
    viewer has already taken (STEPS_DONE's values, "faction_chosen", "company_confirmed"),
    worked out at render time, so that a step done is never still asked for."""
    if status == "finished":
        return [("finished", {})]
    warning = [("gm_paths_missing", {"places": ", ".join(pathless)})] if is_gm and pathless else []
    if status == "running":
        key = ("gm_" if is_gm else "player_") + (phase or "preparation")
        return [(key + "_done" if STEPS_DONE.get(key) in done else key, {})] + warning
    if not is_gm:
        shop: list[tuple[str, dict]] = []
        if is_player and shop_open(status, phase) and "company_confirmed" not in done:
            shop = [("player_confirm_company" if "faction_chosen" in done else "player_shop_open", {})]
        if status == "setup":
            return [("player_wait_setup", {})] + shop
        return [("player_wait_hideouts" if has_hideout else "player_choose_hideout", {})] + shop
    if status == "hideouts":
        return [("gm_start" if all_have_hideouts else "gm_wait_hideouts", {})] + warning
    items: list[tuple[str, dict]] = list(warning)
    if not setup_complete:
        items.append(("gm_finish_setup", {"step": wizard_step}))
    if flagged_places < max(players, MIN_PLAYERS):
        items.append(("gm_add_hideout_places", {}))
    if players < MIN_PLAYERS:
        items.append(("gm_invite", {}))
    else:
        items.append(("gm_open_hideouts", {}))
    return items


PUBLIC_ORDER_PHASES = ("battles", "settlement", "twilight")


def orders_public(campaign, round_: int) -> bool:
    """R4.7, R11.2: a round's orders are secret until its Battles begin — also when the
    campaign was finished before they did (the round keeps the phase it stopped in)."""
    if round_ < campaign.round:
        return True
    return round_ == campaign.round and campaign.phase in PUBLIC_ORDER_PHASES
