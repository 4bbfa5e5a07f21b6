"""Names shown to people: modules, and the guild word of R8.2 (one helper for all texts)."""
from __future__ import annotations

from app.core.errors import N_

MODULE_NAMES = {
    "guilds": N_("Guilds"),
    "mission_alliances": N_("Mission alliances"),
    "letters": N_("Letters"),
    "gold_transfers": N_("Gold transfers"),
    "multi_band_battles": N_("Multi-band battles"),
    "paths": N_("Paths between places"),
    "movement": N_("Warband movement"),
}
GUILD_WORDS = {
    "guild": (N_("guild"), N_("guilds")),
    "consortium": (N_("consortium"), N_("consortia")),
    "group": (N_("group"), N_("groups")),
    "brotherhood": (N_("brotherhood"), N_("brotherhoods")),
    "cartel": (N_("cartel"), N_("cartels")),
    "alliance": (N_("alliance"), N_("alliances")),
}


def guild_word(term: str, gettext, *, plural: bool = False, capital: bool = False) -> str:
    singular, many = GUILD_WORDS.get(term, GUILD_WORDS["guild"])
    word = gettext(many if plural else singular)
    return word[:1].upper() + word[1:] if capital else word


def mission_alliance_word(term: str, gettext, *, plural: bool = False) -> str:
    """With "alliance" as the guild word, mission alliances are called pacts (R8.2)."""
    if term == "alliance":
        return gettext(N_("pacts") if plural else N_("pact"))
    return gettext(N_("mission alliances") if plural else N_("mission alliance"))
