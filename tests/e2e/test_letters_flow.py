"""Quiet diplomacy at 390x844 in Chromium (issue 14): from the Players tab a player writes a
letter (previewed first) and sends gold; the recipient sees the unread count, reads the letter
and replies, and finds the gold in the ledger; the GM sees neither."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.e2e.campaign_setup import api, login, no_horizontal_overflow, running_campaign, shot, tab


def test_e2e_r8_11_r8_12_a_letter_and_gold_from_the_players_tab_read_and_answered(new_page, screenshot):
    """R8.12 (a sealed letter, Markdown previewed, read and answered), R8.11 (gold sent with a
    note, seen in both ledgers, not by the GM), R11.2."""
    sender, reader, gm = new_page("sender"), new_page("reader", locale="pl-PL"), new_page("gm")
    setup = running_campaign(sender, "lt", warband=False)
    ork, bas = setup.players
    login(sender, ork)
    sender.goto(setup.base)
    tab(sender, "Players").click()
    row = sender.locator("li").filter(has=sender.locator("strong", has_text=re.compile(rf"^{bas}$")))
    row.get_by_role("link", name="Write a letter").click()  # two taps: the row, then Send
    sender.get_by_label("Subject").fill("Truce at the bridge")
    sender.get_by_label("Letter").fill("Let us **not** fight at the *Old Bridge*.\n\n<script>alert(1)</script>")
    sender.get_by_role("button", name="Preview").click()
    preview = sender.locator(".letter-preview")
    expect(preview.locator("strong")).to_have_text("not")
    expect(preview).to_contain_text("<script>alert(1)</script>")  # shown as text, never run
    no_horizontal_overflow(sender, "letter preview")
    shot(screenshot, sender, "letter-preview")
    sender.get_by_role("button", name="Send", exact=True).click()
    expect(sender.locator("#flash")).to_contain_text(f"Letter sent to {bas}")

    tab(sender, "Players").click()
    sender.locator("li").filter(has=sender.locator("strong", has_text=re.compile(rf"^{bas}$"))).get_by_role(
        "link", name="Send gold"
    ).click()
    sender.get_by_label("Amount").fill("25")
    sender.get_by_label(re.compile("^Note")).fill("for the ferryman")
    sender.get_by_role("button", name="Send gold").click()
    dialog = sender.get_by_role("dialog")
    expect(dialog).to_be_visible()
    dialog.locator("button:not(.secondary)").last.click()
    expect(sender.locator("#flash")).to_contain_text(f"You sent 25 gold to {bas}")
    shot(screenshot, sender, "gold-sent-ledger")

    login(reader, bas)
    reader.goto(setup.base)
    messages = reader.get_by_role("navigation", name="Kampania").get_by_role("link", name=re.compile("^Wiadomości"))
    expect(messages).to_contain_text("1")
    messages.click()
    reader.get_by_role("link", name=re.compile("Truce at the bridge")).click()
    expect(reader.locator("article.letter strong")).to_have_text("not")
    reader.locator("#reply textarea[name=body]").fill("Agreed — the bridge stays quiet.")
    reader.locator("#reply button[type=submit]:not([formaction])").click()
    expect(reader.locator("#flash")).to_be_visible()
    no_horizontal_overflow(reader, "thread")
    shot(screenshot, reader, "letter-replied-pl")
    reader.goto(f"{setup.base}/ledger")
    expect(reader.locator("main")).to_contain_text("for the ferryman")

    sender.goto(f"{setup.base}/letters")
    expect(sender.locator("main")).to_contain_text("Re: Truce at the bridge")

    login(gm, setup.gm)
    gm.goto(f"{setup.base}/letters")
    expect(gm.locator("main")).not_to_contain_text("Truce")
    players = api(gm, setup.tokens[setup.gm], "GET", f"/campaigns/{setup.cid}/players")
    gm.goto(f"{setup.base}/ledger?player_id={next(p['player_id'] for p in players if p['nickname'] == bas)}")
    expect(gm.locator("main")).not_to_contain_text("ferryman")
