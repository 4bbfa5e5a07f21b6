"""Issue 29 item 8: messages with a count take gettext's plural forms in both languages (Polish
has three) — the warband limits of VANGUARD.md (V-limits: Command, Support and Spellcaster per
Grunt/Warrior models, Large per points) — and counts that read badly are said without a plural."""

import pytest

from app.core.errors import ERRORS, PLURALS, message_for
from app.core.i18n import translations

EN, PL = translations("en").gettext, translations("pl").gettext


@pytest.mark.parametrize(
    "count, english, polish",
    [
        (1, "1 Spellcaster model, but", "1 model typu Spellcaster, a"),
        (2, "2 Spellcaster models, but", "2 modele typu Spellcaster, a"),
        (5, "5 Spellcaster models, but", "5 modeli typu Spellcaster, a"),
        (22, "22 Spellcaster models, but", "22 modele typu Spellcaster, a"),
    ],
)
def test_V_limits_say_one_and_many_in_each_language(count, english, polish):
    params = {"count": count, "max": 0, "gw": 1}
    assert message_for("warband_spellcaster_limit", params, EN) == f"{english} at most 0 allowed (Grunt/Warrior models: 1)."
    assert message_for("warband_spellcaster_limit", params, PL) == f"{polish} dozwolone najwyżej 0 (modele Grunt/Warrior: 1)."


def test_every_plural_message_has_its_three_polish_forms_and_the_old_wording_is_gone():
    catalog = translations("pl")
    for code, (singular, counted) in PLURALS.items():
        forms = {catalog.ngettext(singular, ERRORS[code][1], n) for n in (1, 2, 5)}
        assert len(forms) == 3 and singular not in forms and ERRORS[code][1] not in forms, code
        assert counted in singular and "%(" + counted + ")s" in ERRORS[code][1]
    assert (
        message_for("warband_large_limit", {"count": 1, "max": 0, "limit": 75}, EN)
        == "1 Large model, but at most 0 allowed in 75 points."
    )
    assert all("models but only" not in message for _status, message in ERRORS.values())


def test_counts_said_without_a_plural_read_well_for_one():
    assert (
        message_for("too_few_hideout_places", {"places": 1, "players": 3}, EN)
        == "Free hideout places (⚑): 1, players: 3; add more ⚑ places first."
    )
    assert message_for("settlement_took_out_too_many", {"count": 1, "enemies": 0}, PL).startswith(
        "Wyeliminowanych modeli wroga: 1"
    )
