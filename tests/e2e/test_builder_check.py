"""The warband builder's live check reacts to ticking a model and to choosing a mercenary,
without typing in Name first, in the new and the edit form (R4.2), at 390x844."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.e2e.campaign_setup import (
    login as _login,
)
from tests.e2e.campaign_setup import (
    no_horizontal_overflow as _no_horizontal_overflow,
)
from tests.e2e.campaign_setup import (
    pick as _pick,
)
from tests.e2e.campaign_setup import (
    running_campaign,
)
from tests.e2e.campaign_setup import (
    shot as _shot,
)


def test_e2e_r4_2_builder_check_updates_when_a_model_is_ticked(new_page, screenshot):
    """R4.2, V4, V6: the live check follows the ticked models and the mercenary at once,
    with the Name field left alone; the edit form does the same."""
    page = new_page("builder", has_touch=True)
    setup = running_campaign(page, "bchk", warband=False)
    ork = setup.players[0]
    _login(page, ork)
    page.goto(f"{setup.base}/warbands/new")
    expect(page.get_by_role("heading", name="New warband")).to_be_visible()
    page.evaluate("window.__sameDocument = true")
    check = page.locator("#check")
    expect(check).to_contain_text("0 / 200 pts")
    expect(page.get_by_label("Name")).to_have_value("")

    _pick(page, "Krusher").check()
    expect(check).to_contain_text("34 / 200 pts")
    _pick(page, "Ax").first.check()
    expect(check).to_contain_text("46 / 200 pts")
    # A mercenary Spellcaster with one Grunt: a problem shows without typing a name.
    page.get_by_label("Mercenary").select_option("merc.kuzlo-and-madfall")
    expect(check).to_contain_text("92 / 200 pts")
    expect(check.locator("li[data-code=warband_spellcaster_limit]")).to_have_count(1)
    page.get_by_label("Mercenary").select_option("")
    expect(check).to_contain_text("46 / 200 pts")
    expect(check.locator("li[data-code=warband_spellcaster_limit]")).to_have_count(0)
    assert page.evaluate("window.__sameDocument === true"), "the live check reloaded the page"
    expect(page.get_by_label("Name")).to_have_value("")
    _no_horizontal_overflow(page, "the builder after a tick")
    _shot(screenshot, page, "builder-after-tick")

    # The edit form of a saved warband reacts the same way.
    page.get_by_label("Name").fill("Tick Krushas")
    page.get_by_role("button", name="Save the warband").click()
    expect(page.get_by_role("heading", name="Warbands", exact=True)).to_be_visible()
    page.locator("article.card").filter(has=page.get_by_role("heading", name="Tick Krushas")).get_by_role(
        "link", name=re.compile("^Edit")
    ).click()
    expect(page.get_by_role("heading", name="Edit Tick Krushas")).to_be_visible()
    check = page.locator("#check")
    expect(check).to_contain_text("46 / 200 pts")
    _pick(page, "Ax").nth(1).check()
    expect(check).to_contain_text("58 / 200 pts")
    _pick(page, "Krusher").uncheck()
    expect(check).to_contain_text("24 / 200 pts")
