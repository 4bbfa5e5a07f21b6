"""Issue 29 item 7 (R11.3): the shop page is grouped by type with Command first, says 'You own N'
per profile (English and Polish), and its filter stays in view (sticky)."""

from tests.builders.accounts import user
from tests.builders.campaigns import join
from tests.builders.pages import login, post


def _shop(client, make_client):
    gm = user(client, "gamemaster")
    cid = client.post("/api/v1/campaigns", json={"name": "Shop"}, headers=gm).json()["id"]
    anna = join(client, gm, cid, "anna")
    browser = make_client()
    login(browser, "anna")
    post(browser, f"/campaigns/{cid}/company/faction", {"faction": "orcs"})
    return cid, anna, browser


def test_R11_3_the_shop_lists_command_first_and_tells_how_many_of_a_profile_you_own(client, make_client):
    cid, anna, browser = _shop(client, make_client)
    for _ in range(2):
        assert post(browser, f"/campaigns/{cid}/shop/models", {"profile": "orcs.krusher"}).status_code == 303
    page = browser.get(f"/campaigns/{cid}/shop").text
    headings = [t for t in ("g-Command", "g-Grunt", "g-Warrior", "g-Spellcaster", "g-Support", "g-Large") if f'id="{t}"' in page]
    assert headings[0] == "g-Command" and [page.index(f'id="{t}"') for t in headings] == sorted(
        page.index(f'id="{t}"') for t in headings
    )
    krusher = page[page.index('id="p-orcs.krusher"') :]
    krusher = krusher[: krusher.index("</article>")]
    assert "You own 2" in krusher and page.count("You own") == 1
    assert 'class="card shop-filter"' in page
    assert client.patch("/api/v1/me", json={"locale": "pl"}, headers=anna["headers"]).status_code == 200
    assert "Masz 2" in browser.get(f"/campaigns/{cid}/shop").text


def test_a_type_filter_keeps_one_group_and_nothing_owned_says_nothing(client, make_client):
    cid, _anna, browser = _shop(client, make_client)
    page = browser.get(f"/campaigns/{cid}/shop?type=Large").text
    assert 'id="g-Large"' in page and 'id="g-Command"' not in page and "You own" not in page


def test_the_sticky_filter_rule_is_in_the_stylesheet(client):
    css = client.get("/static/style.css").text
    rule = css[css.index(".shop-filter {") :]
    assert "position: sticky" in rule[: rule.index("}")]
