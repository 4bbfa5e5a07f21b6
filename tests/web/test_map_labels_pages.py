"""Issue 29 item 7, R12.14: the drawn map places two close markers' names apart (one moves
aside) and turns a name at the edge inwards."""

from tests.builders.accounts import user
from tests.builders.pages import login


def test_R12_14_close_places_get_labels_that_do_not_cover_each_other(client, make_client):
    gm = user(client, "gamemaster")
    cid = client.post("/api/v1/campaigns", json={"name": "Labels"}, headers=gm).json()["id"]
    for name, x, y in (("Mill", 50, 50), ("Ford", 50, 53), ("Harbour of the Far East", 99.5, 20)):
        assert (
            client.post(
                f"/api/v1/campaigns/{cid}/places", json={"name": name, "income": 1, "x": x, "y": y}, headers=gm
            ).status_code
            == 201
        )
    browser = make_client()
    login(browser, "gamemaster")
    page = browser.get(f"/campaigns/{cid}/map").text
    assert '<text class="n" dy="-1.45em">Mill · 1</text>' in page  # above: the Ford's label takes the place below
    assert '<text class="n" dy="2.2em">Ford · 1</text>' in page
    assert '<text class="n l" dx="-1.35em" dy=".35em">Harbour of the Far East · 1</text>' in page
