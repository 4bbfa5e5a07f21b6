"""The end of a round as pure rules: who takes each place in Twilight (R7.3-R7.5, R8.10),
what the Twilight gate waits for (R7.2), and the income paid at End round (R7.6)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from app.battles.rules import Group

# Which groups (a guild, a mission alliance) a player belongs to at an event (None: a place
# without events); the battle plan's groups (battles.service.groups), or made-up ones in tests.
Affiliation = Callable[[int, int | None], list[Group]]


def no_allies(player_id: int, event_id: int | None) -> list[Group]:
    return []


@dataclass(frozen=True)
class Fought:
    """A decided battle at the place: its event, its players and its winners."""

    event_id: int | None
    players: tuple[int, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True)
class Came:
    """A warband that did not fight: unopposed (met nobody, or only allies) or left out."""

    player_id: int
    event_id: int | None


@dataclass
class PlaceRound:
    place_id: int
    owner: int | None
    battles: list[Fought] = field(default_factory=list)
    unopposed: list[Came] = field(default_factory=list)
    left_out: list[Came] = field(default_factory=list)


# Outcome reasons, each with what it means for the place (pages say them in words).
SOLE_WINNER, GUILD, ALLIANCE, WINNERS_CHOICE = "sole_winner", "guild", "alliance", "winners_choice"
UNOPPOSED, UNOPPOSED_GUILD, UNOPPOSED_ALLIANCE, UNOPPOSED_CHOICE = (
    "unopposed",
    "unopposed_guild",
    "unopposed_alliance",
    "unopposed_choice",
)
DRAW, UNOPPOSED_OWNED, LEFT_OUT = "draw", "unopposed_owned", "left_out"


@dataclass(frozen=True)
class Outcome:
    place_id: int
    owner: int | None
    reason: str
    taker: int | None = None  # who takes the place (None: it stays as it is, or the GM chooses)
    candidates: tuple[int, ...] = ()  # the GM chooses among these

    @property
    def needs_gm_choice(self) -> bool:
        return bool(self.candidates)

    def new_owner(self, choice: int | None = None) -> int | None:
        """Who holds the place after End round (None when it stays free)."""
        if self.needs_gm_choice:
            return choice
        return self.taker if self.taker is not None else self.owner


def _common(players: list[int], groups_of: Callable[[int], list[Group]], kind: str) -> Group | None:
    """The one group of `kind` that every player belongs to, if there is one."""
    common: set[Group] | None = None
    for p in players:
        mine = {g for g in groups_of(p) if g.kind == kind}
        common = mine if common is None else common & mine
    return min(common, key=lambda g: g.key) if common else None


def _decide(
    place: PlaceRound,
    players: list[int],
    events: dict[int, set[int | None]],
    allies: Affiliation,
    sole: str,
    guild: str,
    alliance: str,
    choice: str,
) -> Outcome:
    """One player takes the place; players all of one guild give it to the founder, all of
    one mission alliance to the initiator (R7.3, R8.10); otherwise the GM chooses."""
    if len(players) == 1:
        return Outcome(place.place_id, place.owner, sole, taker=players[0])

    def groups_of(p: int) -> list[Group]:
        found: list[Group] = []
        for event_id in sorted(events.get(p, {None}), key=lambda e: (e is not None, e or 0)):
            found += allies(p, event_id)
        return found

    for kind, reason in (("guild", guild), ("alliance", alliance)):
        group = _common(players, groups_of, kind)
        if group is not None:
            return Outcome(place.place_id, place.owner, reason, taker=group.leader)
    return Outcome(place.place_id, place.owner, choice, candidates=tuple(sorted(set(players))))


def outcome(place: PlaceRound, allies: Affiliation = no_allies) -> Outcome:
    """R7.3-R7.5, R8.10 for one place, counting all its battles across its events:
    - winners take it (also over another player's hideout); a draw leaves it with its owner;
    - where nobody won, warbands that met nobody take it only if it has no owner;
    - left-out warbands take nothing.
    Battle winners come before unopposed warbands at the same place (a decision: a warband
    that won a fight outranks one that met nobody)."""
    events: dict[int, set[int | None]] = {}
    for b in place.battles:
        for p in b.winners:
            events.setdefault(p, set()).add(b.event_id)
    winners = sorted(events)
    if winners:
        return _decide(place, winners, events, allies, SOLE_WINNER, GUILD, ALLIANCE, WINNERS_CHOICE)
    if place.unopposed and place.owner is None:
        came: dict[int, set[int | None]] = {}
        for a in place.unopposed:
            came.setdefault(a.player_id, set()).add(a.event_id)
        return _decide(place, sorted(came), came, allies, UNOPPOSED, UNOPPOSED_GUILD, UNOPPOSED_ALLIANCE, UNOPPOSED_CHOICE)
    if place.battles:
        return Outcome(place.place_id, place.owner, DRAW)
    if place.unopposed:
        return Outcome(place.place_id, place.owner, UNOPPOSED_OWNED)
    return Outcome(place.place_id, place.owner, LEFT_OUT)


# --- the Twilight gate (R7.2) ---------------------------------------------------------------


@dataclass(frozen=True)
class Missing:
    """Something Twilight waits for: a battle's result (`kind` "result") or a settlement
    (`kind` "settlement"), and from whom."""

    kind: str
    battle_id: int
    place_id: int
    player_ids: tuple[int, ...]
    warband: str = ""


# --- income (R7.6) ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Payment:
    player_id: int
    amount: int
    kind: str  # income / place_income
    place_id: int | None = None


def income(players: list[int], round_income: int, places: list[tuple[int, int | None, int]]) -> list[Payment]:
    """Every player gets the round income; every owner the income of each place they own
    (`places`: (place_id, owner, income) after the captures). Nothing is paid as zero."""
    payments = [Payment(p, round_income, "income") for p in players if round_income > 0]
    payments += [
        Payment(owner, amount, "place_income", place_id)
        for place_id, owner, amount in sorted(places)
        if owner is not None and amount > 0 and owner in players
    ]
    return payments
