"""R12.15 on the company page: a roster file, the confirm step that says what it buys and for
how much, then the flash; a refused file leaves the company as it was, with the reason."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from tests.api.test_roster_import_api import BILLION_LAUGHS, TEN, UPGRADES, _items, bsdata, bsdata_dir, shop, state
from tests.builders.pages import browser, csrf, flash_of, shown
from tests.builders.rosters import roster_xml, rosz
from tests.web import vnu

HIDDEN = re.compile(r'<input type="hidden" name="([a-z_]+)" value="([^"]*)">')


def _upload(b, cid, content: bytes, name: str = "warband.ros"):
    token = csrf(b, f"/campaigns/{cid}/company")
    r = b.post(
        f"/campaigns/{cid}/company/import",
        data={"csrf_token": token},
        files={"file": (name, content, "application/octet-stream")},
        follow_redirects=False,
    )
    return shown(b, r)


def _confirm(b, cid, page: str):
    """The confirm step's button: its form posted as it stands (hidden fields, confirm=1)."""
    form = page[page.index('action="/campaigns/%d/company/import"' % cid) :]
    fields: dict[str, list[str]] = {}
    for name, value in HIDDEN.findall(form.split("</form>")[0]):
        fields.setdefault(name, []).append(html.unescape(value))
    return b.post(f"/campaigns/{cid}/company/import", data=fields, follow_redirects=False)


def test_r12_15_a_ten_model_company_from_a_file_asked_once_then_said(client, make_client, engine, bsdata, tmp_path):
    gm, cid, anna = shop(client, starting_gold=500, gold_per_point=1)
    b = browser(make_client, "anna")
    company = b.get(f"/campaigns/{cid}/company").text
    assert "Import a roster file" in company and 'type="file" name="file"' in company
    before = state(engine, anna["player_id"])

    # tap 1-2: the file input and the file; tap 3: Import
    step = _upload(b, cid, rosz(("warband.ros", roster_xml("Goblins", TEN, unknown=("Homebrew Hero",)))), "warband.rosz")
    assert step.status_code == 200, step.text[:500]
    prices = {p.name: p.points for p in bsdata.profiles.values() if p.faction == "bs.goblins"}
    total = prices["Biggit"] + 6 * prices["Rabble"] + prices["Spitter"] + prices["Luggit"] + prices["Wiz"]
    assert "Buy the roster&#39;s models?" in step.text or "Buy the roster's models?" in step.text
    assert f"<td>Rabble</td><td>6</td><td>{6 * prices['Rabble']}</td>" in step.text
    assert f"Buy for {total} gold" in step.text and f"Your gold: 500 now, {500 - total} after." in step.text
    assert "Not in the catalog, so not bought: Homebrew Hero." in step.text
    assert state(engine, anna["player_id"]) == before  # asked only: nothing bought yet
    (tmp_path / "confirm.html").write_text(step.text)
    (tmp_path / "company.html").write_text(company)

    # tap 4: Buy
    r = _confirm(b, cid, step.text)
    assert r.status_code == 303, r.text[:500]
    page = b.get(r.headers["location"]).text
    assert flash_of(page) == (
        f"Bought from the roster for {total} gold: Biggit, Rabble ×6, Spitter, Luggit, Wiz. "
        "Not in the catalog, so not bought: Homebrew Hero."
    )
    models, ledger, gold = state(engine, anna["player_id"])
    assert len(models) == 10 and gold == 500 - total
    assert len([kind for _amount, kind in ledger if kind == "purchase"]) == 10


@pytest.mark.load  # the Nu checker starts a JVM: several seconds
@pytest.mark.markup
def test_r12_15_the_pages_pass_the_nu_checker(client, make_client, bsdata, tmp_path):
    try:
        vnu.vnu_jar()
    except vnu.CheckerMissing as exc:
        pytest.fail(str(exc))
    gm, cid, anna = shop(client, starting_gold=500, gold_per_point=1)
    b = browser(make_client, "anna")
    company = b.get(f"/campaigns/{cid}/company").text
    step = _upload(b, cid, roster_xml("Goblins", TEN, unknown=("Homebrew Hero",))).text
    refused = _upload(b, cid, BILLION_LAUGHS).text
    files = []
    for name, text in (("company", company), ("confirm", step), ("refused", refused)):
        path = tmp_path / f"{name}.html"
        path.write_text(text)
        files.append(path)
    errors = vnu.check(files)
    assert not errors, "\n".join(vnu.describe(m, {str(p): p.name for p in files}) for m in errors)


def test_r12_15_a_hostile_file_is_refused_on_the_page_with_its_reason_and_nothing_changes(client, make_client, engine, bsdata):
    gm, cid, anna = shop(client, starting_gold=500)
    b = browser(make_client, "anna")
    before = state(engine, anna["player_id"])
    page = _upload(b, cid, BILLION_LAUGHS)
    assert page.status_code == 422
    assert "The roster declares a DTD or XML entities" in html.unescape(page.text)
    assert state(engine, anna["player_id"]) == before


def test_r12_15_the_confirm_step_checks_again_what_it_posts_back(client, make_client, engine, bsdata):
    """The step carries the matched profiles, not the file: tampered with, it is the shop's
    refusal, and nothing is bought."""
    gm, cid, anna = shop(client, starting_gold=500)
    b = browser(make_client, "anna")
    before = state(engine, anna["player_id"])
    token = csrf(b, f"/campaigns/{cid}/company")
    fields = {"csrf_token": token, "faction": "bs.goblins", "profile": ["bs.orcs.ax"], "confirm": "1"}
    r = shown(b, b.post(f"/campaigns/{cid}/company/import", data=fields, follow_redirects=False))
    assert r.status_code == 422 and "belongs to another faction" in html.unescape(r.text)
    assert state(engine, anna["player_id"]) == before


def test_r12_15_the_page_speaks_polish(client, make_client, engine, bsdata):
    gm, cid, anna = shop(client, starting_gold=500)
    b = browser(make_client, "anna", hideout_lang="pl")
    company = b.get(f"/campaigns/{cid}/company").text
    assert "Import pliku rozpiski" in company
    step = _upload(b, cid, roster_xml("Goblins", ["Biggit"])).text
    assert "Kupić modele z rozpiski?" in html.unescape(step)


def test_r12_15_the_page_buys_a_models_items_with_it_and_names_what_it_does_not(client, make_client, engine, bsdata):
    gm, cid, anna = shop(client, starting_gold=500, gold_per_point=1)
    b = browser(make_client, "anna")
    before = state(engine, anna["player_id"])
    step = _upload(b, cid, roster_xml("Goblins", ["Biggit", ("Rabble", 2)], upgrades=UPGRADES))
    assert step.status_code == 200, step.text[:500]
    text = html.unescape(step.text)
    spear = bsdata.items["bs.item.spear"].points
    assert f"<td>Spear</td><td>2</td><td>{2 * spear}</td>" in text
    assert "Not in the catalog, so not bought: Biggit: Homebrew Charm." in text
    assert (
        "Not for sale or more than the model carries, so not bought: Biggit: Holy Water, Rabble 1: Bandages, Rabble 2: Bandages."
        in text
    )
    assert state(engine, anna["player_id"]) == before and _items(engine) == []  # asked only
    r = _confirm(b, cid, step.text)
    assert r.status_code == 303, r.text[:500]
    flash = flash_of(b.get(r.headers["location"]).text)
    assert flash.startswith("Bought from the roster for ") and "Biggit, Rabble ×2, Brew of Courage, Spear ×2." in flash
    assert flash.endswith(
        "Not in the catalog, so not bought: Biggit: Homebrew Charm."
        " Not for sale or more than the model carries, so not bought: Biggit: Holy Water, Rabble 1: Bandages, Rabble 2: Bandages."
    )
    models = {m.id: m.name for m in _models(engine)}
    assert sorted((key, models[mid]) for key, mid in _items(engine)) == [
        ("bs.item.brew-of-courage", "Biggit"),
        ("bs.item.spear", "Rabble"),
        ("bs.item.spear", "Rabble"),
    ]


def _models(engine):
    from sqlmodel import Session, select

    from app.companies.models import CompanyModel

    with Session(engine) as s:
        return list(s.exec(select(CompanyModel)).all())


_ = (bsdata_dir, Path)  # the fixtures are imported for their names
