"""The chronicle's words (R11.1, R11.3): entries are stored as a kind and parameters and read
here, in each reader's language, at the edge (pages and API)."""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from app.chronicle.models import ChronicleEntry
from app.core.errors import N_

TEXTS = {
    "campaign_created": N_("%(gm)s created the campaign."),
    "player_joined": N_("%(nickname)s joined the campaign."),
    "hideouts_opened": N_("The roster is closed; hideout selection begins."),
    "hideout_claimed": N_("%(nickname)s set up a hideout at %(place)s."),
    "campaign_started": N_("The campaign begins: round 1, Preparation."),
    "phase_changed": N_("Round %(round)s: %(from_phase)s → %(to_phase)s."),
    "round_ended": N_("Round %(round)s ended; round %(next)s begins with Preparation."),
    "campaign_finished": N_("The campaign is finished."),
    "event_added": N_("A new event at %(place)s: %(title)s."),
    "event_ended": N_("The event %(title)s has ended."),
    "battle_announced": N_("Battle at %(place)s: %(warbands)s."),
    "battle_announced_event": N_("Battle at %(place)s (%(title)s): %(warbands)s."),
    "battle_won": N_("At %(place)s: victory for %(winners)s."),
    "battle_drawn": N_("At %(place)s: a draw."),
    "place_taken": N_("%(player)s takes %(place)s and sets up a hideout there."),
    "place_taken_from": N_("%(player)s takes %(place)s from %(previous)s and sets up a hideout there."),
    "round_no_captures": N_("Round %(round)s: no place changed hands."),
    # R8.6, R8.8: the campaign's guild and mission-alliance words fill %(guild)s and its forms.
    "guild_founded": N_("%(player)s founded the %(guild)s %(name)s."),
    "guild_joined": N_("%(player)s joined the %(guild)s %(name)s."),
    "guild_upgraded": N_("The %(guild)s %(name)s rose to level %(level)s."),
    "guild_left": N_("%(player)s left the %(guild)s %(name)s."),
    "guild_dissolved": N_("%(player)s dissolved the %(guild)s %(name)s."),
    "warband_scattered": N_(
        "%(warband)s was beaten at %(place)s with no hideout left to fall back to: it is scattered, and the game master places it."
    ),
    # The battle clock (issue 18); %(clock_end)s is one of clock/service.py's END_NAMES.
    "clock_out_of_time": N_("At %(place)s %(side)s ran out of time in turn %(turn)s."),
    "clock_ended": N_("At %(place)s the game ended in turn %(turns)s: %(clock_end)s."),
    "alliance_revealed": N_("A %(alliance)s for %(title)s: %(initiator)s with %(allies)s."),
    # Deadlines (issue 19); %(deadline_phase)s is a phase, %(at)s the moment in UTC (ends_at: ISO).
    "deadline_set": N_("%(deadline_phase)s ends at %(at)s."),
    "deadline_near": N_("%(deadline_phase)s ends soon, at %(at)s."),
    "deadline_cleared": N_("The deadline of %(deadline_phase)s is lifted."),
    # People come and go (issue 36).
    "game_master_added": N_("%(nickname)s is now a game master of the campaign."),
    "game_master_removed": N_("%(nickname)s is no longer a game master of the campaign."),
    "player_joined_late": N_("%(nickname)s joins the campaign in round %(round)s and sets up a hideout at %(place)s."),
    "seat_handed_over": N_("%(previous)s hands their seat to %(nickname)s."),
}
# Parameters stored as keys (a phase, say) and the names to translate them with; the domain
# that owns the names registers them, so that the chronicle imports none of its writers.
LABELS: dict[str, dict[str, str]] = {}


def add_labels(params: tuple[str, ...], names: dict[str, str]) -> None:
    for param in params:
        LABELS[param] = names


def entry_text(entry: ChronicleEntry, gettext, words: Mapping[str, str] | None = None) -> str:
    """`words`: the campaign's guild and mission-alliance words in the reader's language (R8.2).
    Only a known kind's translated message is formatted, with the parameters as values: a kind
    or parameter from the data is never a format string (issue 28)."""
    template = TEXTS.get(entry.kind)
    if template is None:
        return entry.kind  # not one this server writes (imports refuse it): shown as the text it is
    stored = entry.params if isinstance(entry.params, dict) else {}
    params = {**(words or {}), **stored}
    for key, names in LABELS.items():
        if isinstance(params.get(key), str) and params[key] in names:
            params[key] = gettext(names[params[key]])
    template = gettext(template)
    try:
        text = template % params
    except (KeyError, TypeError, ValueError):
        text = template
    if isinstance(params.get("rosters"), list):
        text = " ".join([text, *(_roster_text(r, gettext) for r in params["rosters"] if isinstance(r, dict))])
    return text


def _roster_text(roster: dict, gettext) -> str:
    """R6.5, R11.1: an announced battle's public rosters, mercenaries included."""
    models = []
    listed = roster.get("models")
    for m in listed if isinstance(listed, list) else []:
        if not isinstance(m, dict):
            continue
        label = gettext("mercenary, %(points)s pts") if m.get("mercenary") else gettext("%(points)s pts")
        models.append(f"{m.get('name', '')} ({label % {'points': m.get('points', 0)}})")
    head = gettext("%(name)s, %(points)s pts") % {"name": roster.get("name", ""), "points": roster.get("points", 0)}
    return f"{head}: {', '.join(models)}."


class _RosterModel(BaseModel):
    name: str = Field(max_length=200)
    points: int
    mercenary: bool = False


class _Roster(BaseModel):
    name: str = Field(max_length=200)
    points: int
    models: list[_RosterModel] = Field(default_factory=list, max_length=200)


_ROSTERS = TypeAdapter(list[_Roster])


def params_problem(kind: object, params) -> str | None:
    """What of a stored entry this server would not have written, for an import to refuse
    (issue 28): "kind" for a kind it does not know, else the malformed parameter, or None."""
    if not isinstance(kind, str) or kind not in TEXTS:
        return "kind"
    if not isinstance(params, dict):
        return "params"
    if "rosters" in params:
        try:
            _ROSTERS.validate_python(params["rosters"], strict=True)
        except ValidationError:
            return "params.rosters"
    return None
