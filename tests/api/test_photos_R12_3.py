"""R12.3 photos with results: a battle's players and the GM attach photos of the table through
the map images' limits (a pixel bomb refused from its header); each is re-encoded without EXIF
or GPS and kept by its content's hash under the var directory; members see them on the battle
page and in the chronicle, outsiders are told nothing is there; the owner or the GM deletes
one; export and import carry them."""

from __future__ import annotations

import hashlib
from io import BytesIO

from PIL import ExifTags, Image
from sqlmodel import Session, select

from app.battles.models import BattlePhoto
from tests.api.test_input_abuse_api import _png as bomb
from tests.builders.accounts import user
from tests.builders.battles import two_player_battle
from tests.builders.campaigns import running_campaign
from tests.builders.pages import TOKEN, browser
from tests.builders.rounds import fight

API = "/api/v1"
SECRET_PLACE = "Sekretny Ogród"


def gps_jpeg(size=(64, 48)) -> bytes:
    """A JPEG whose EXIF holds a camera, a comment and a GPS position."""
    exif = Image.Exif()
    exif[ExifTags.Base.Make] = "SpyCam"
    exif[ExifTags.Base.ImageDescription] = SECRET_PLACE
    gps = exif.get_ifd(ExifTags.IFD.GPSInfo)
    gps[ExifTags.GPS.GPSLatitudeRef] = "N"
    gps[ExifTags.GPS.GPSLatitude] = (52.0, 13.0, 37.0)
    gps[ExifTags.GPS.GPSLongitudeRef] = "E"
    gps[ExifTags.GPS.GPSLongitude] = (21.0, 0.0, 42.0)
    out = BytesIO()
    Image.new("RGB", size, (120, 90, 60)).save(out, "JPEG", exif=exif)
    data = out.getvalue()
    assert Image.open(BytesIO(data)).getexif().get_ifd(ExifTags.IFD.GPSInfo)  # the source does carry it
    return data


def _add(client, cid, bid, headers, data=None, name="table.jpg"):
    return client.post(
        f"{API}/campaigns/{cid}/battles/{bid}/photos", files={"file": (name, data or gps_jpeg(), "image/jpeg")}, headers=headers
    )


def _rows(engine):
    with Session(engine) as s:
        return s.exec(select(BattlePhoto.id, BattlePhoto.player_id, BattlePhoto.name)).all()


def test_r12_3_a_photo_is_kept_without_exif_or_gps_by_its_content_hash(client, engine, settings):
    gm, cid, players, bid = two_player_battle(client)
    r = _add(client, cid, bid, players[0]["headers"])
    assert r.status_code == 201, r.text
    photo = r.json()
    assert photo["url"] == f"/campaigns/{cid}/battles/{bid}/photos/{photo['id']}" and (photo["width"], photo["height"]) == (
        64,
        48,
    )
    got = client.get(f"{API}/campaigns/{cid}/battles/{bid}/photos/{photo['id']}", headers=players[1]["headers"])
    assert got.status_code == 200 and got.headers["content-type"] == "image/jpeg"
    image = Image.open(BytesIO(got.content))
    assert image.size == (64, 48) and not image.getexif() and "exif" not in image.info
    assert b"SpyCam" not in got.content and SECRET_PLACE.encode() not in got.content and b"Exif" not in got.content
    [(_id, owner, name)] = _rows(engine)
    assert owner == players[0]["player_id"] and name == hashlib.sha256(got.content).hexdigest() + ".jpg"
    stored = settings.var_dir / "media" / "photos" / name
    assert stored.read_bytes() == got.content
    # The public /media/ route never serves it.
    assert client.get(f"/media/photos/{name}").status_code == 404 and client.get(f"/media/{name}").status_code == 404


def test_r12_3_limits_and_who_may_add_refusals_change_nothing(client, engine):
    gm, cid, players, bid = two_player_battle(client)
    r = _add(client, cid, bid, players[0]["headers"], bomb(9500, 9500), "bomb.png")
    assert r.status_code == 422 and r.json()["error"]["code"] == "image_too_many_pixels"
    r = _add(client, cid, bid, players[0]["headers"], b"<svg></svg>", "x.svg")
    assert r.status_code == 422 and r.json()["error"]["code"] == "image_invalid"
    outsider = user(client, "outsider")
    assert _add(client, cid, bid, outsider).status_code == 404
    assert _rows(engine) == []
    # The GM may add one (theirs: no player).
    assert _add(client, cid, bid, gm).status_code == 201
    assert [owner for _i, owner, _n in _rows(engine)] == [None]


def test_r12_3_a_member_not_in_the_battle_may_look_but_not_add(client, engine):
    gm, cid, players, places = running_campaign(client, 3)
    from tests.builders.companies import BASILEANS, ORCS, buy, warband

    for p, (faction, keys) in zip(players[:2], (("orcs", ORCS), ("basileans", BASILEANS))):
        p["band"] = warband(client, cid, p, buy(client, cid, p, *keys, faction=faction))
    fight(client, gm, cid, players[:2], place_id=places[3]["id"])
    [battle] = client.get(f"{API}/campaigns/{cid}/battles", headers=gm).json()["items"]
    bid = battle["id"]
    r = _add(client, cid, bid, players[2]["headers"])
    assert r.status_code == 403 and r.json()["error"]["code"] == "photo_participants_only"
    pid = _add(client, cid, bid, players[0]["headers"]).json()["id"]
    assert client.get(f"{API}/campaigns/{cid}/battles/{bid}/photos/{pid}", headers=players[2]["headers"]).status_code == 200
    listed = client.get(f"{API}/campaigns/{cid}/battles/{bid}/photos", headers=players[2]["headers"]).json()
    assert [p["id"] for p in listed] == [pid]


def test_r12_3_outsiders_and_other_campaigns_see_nothing(client, engine, make_client):
    gm, cid, players, bid = two_player_battle(client)
    pid = _add(client, cid, bid, players[0]["headers"]).json()["id"]
    outsider = user(client, "outsider")
    assert client.get(f"{API}/campaigns/{cid}/battles/{bid}/photos/{pid}", headers=outsider).status_code == 404
    assert client.get(f"{API}/campaigns/{cid}/battles/{bid}/photos", headers=outsider).status_code == 404
    anon = make_client()
    r = anon.get(f"/campaigns/{cid}/battles/{bid}/photos/{pid}", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith("/login")
    # Another campaign's GM asks for it under their own campaign: not there.
    other_gm = user(client, "othergm")
    other_cid = client.post(f"{API}/campaigns", json={"name": "Other"}, headers=other_gm).json()["id"]
    assert client.get(f"{API}/campaigns/{other_cid}/battles/{bid}/photos/{pid}", headers=other_gm).status_code == 404
    # Members see it on the battle page.
    b = browser(make_client, players[1]["nickname"])
    page = b.get(f"/campaigns/{cid}/battles/{bid}")
    assert f"/campaigns/{cid}/battles/{bid}/photos/{pid}" in page.text and 'accept="image/*"' in page.text
    assert b.get(f"/campaigns/{cid}/battles/{bid}/photos/{pid}").headers["content-type"] == "image/jpeg"


def test_r12_3_the_owner_or_the_gm_deletes_a_photo(client, engine, settings):
    gm, cid, players, bid = two_player_battle(client)
    first = _add(client, cid, bid, players[0]["headers"]).json()["id"]
    same = _add(client, cid, bid, players[1]["headers"]).json()["id"]  # the same picture: one file
    assert len({n for _i, _o, n in _rows(engine)}) == 1
    r = client.delete(f"{API}/campaigns/{cid}/battles/{bid}/photos/{first}", headers=players[1]["headers"])
    assert r.status_code == 403 and r.json()["error"]["code"] == "photo_owner_only"
    assert len(_rows(engine)) == 2
    assert client.delete(f"{API}/campaigns/{cid}/battles/{bid}/photos/{first}", headers=players[0]["headers"]).status_code == 204
    [(_i, _o, name)] = _rows(engine)
    folder = settings.var_dir / "media" / "photos"
    assert (folder / name).is_file()  # still another photo's
    assert client.delete(f"{API}/campaigns/{cid}/battles/{bid}/photos/{same}", headers=gm).status_code == 204
    assert _rows(engine) == [] and not (folder / name).exists()


def test_r12_3_photos_are_in_the_chronicle_entry_of_the_result(client, engine, make_client):
    gm, cid, players, bid = two_player_battle(client)
    pid = _add(client, cid, bid, players[0]["headers"]).json()["id"]
    headers0 = players[0]["headers"]
    client.post(
        f"{API}/campaigns/{cid}/battles/{bid}/result", json={"winner_player_ids": [players[0]["player_id"]]}, headers=headers0
    )
    assert client.post(f"{API}/campaigns/{cid}/battles/{bid}/confirm", headers=players[1]["headers"]).status_code == 200
    b = browser(make_client, players[1]["nickname"])
    page = b.get(f"/campaigns/{cid}/chronicle").text
    assert f'src="/campaigns/{cid}/battles/{bid}/photos/{pid}"' in page


def test_r12_3_a_page_upload_and_delete(client, engine, make_client):
    gm, cid, players, bid = two_player_battle(client)
    b = browser(make_client, players[0]["nickname"])
    page = b.get(f"/campaigns/{cid}/battles/{bid}")
    body = {"csrf_token": TOKEN.search(page.text).group(1)}
    r = b.post(
        f"/campaigns/{cid}/battles/{bid}/photos",
        data=body,
        files={"file": ("t.jpg", gps_jpeg(), "image/jpeg")},
        follow_redirects=False,
    )
    assert r.status_code == 303 and r.headers["location"].endswith("#photos")
    assert "Photo added." in b.get(r.headers["location"]).text
    [(pid, _o, _n)] = _rows(engine)
    url = f"/campaigns/{cid}/battles/{bid}/photos/{pid}/delete"
    asked = b.post(url, data=body, follow_redirects=False)
    assert asked.status_code == 200 and "Delete this photo?" in asked.text and len(_rows(engine)) == 1
    r = b.post(url, data={**body, "confirm": "1"}, follow_redirects=False)
    assert r.status_code == 303 and _rows(engine) == []


def test_r12_3_export_and_import_carry_the_photos(client, engine):
    from tests.api.test_exports_api import export, import_

    gm, cid, players, bid = two_player_battle(client)
    pid = _add(client, cid, bid, players[0]["headers"]).json()["id"]
    gm_pid = _add(client, cid, bid, gm, gps_jpeg((40, 30))).json()["id"]
    served = client.get(f"{API}/campaigns/{cid}/battles/{bid}/photos/{pid}", headers=gm).content
    headers0 = players[0]["headers"]
    client.post(
        f"{API}/campaigns/{cid}/battles/{bid}/result", json={"winner_player_ids": [players[0]["player_id"]]}, headers=headers0
    )
    client.post(f"{API}/campaigns/{cid}/battles/{bid}/confirm", headers=players[1]["headers"])
    doc = export(client, cid, gm)
    [battle] = doc["battles"]
    shots = battle["photos"]
    assert [(p["player_id"], "image" in p, "name" in p) for p in shots] == [(1, True, False), (None, True, False)]
    [won] = [e for e in doc["chronicle"] if e["kind"] == "battle_won"]
    assert won["params"]["battle_id"] == battle["id"]
    created = import_(client, doc, gm)
    new_cid = created["id"]
    [new_battle] = client.get(f"{API}/campaigns/{new_cid}/battles", headers=gm).json()["items"]
    listed = client.get(f"{API}/campaigns/{new_cid}/battles/{new_battle['id']}/photos", headers=gm).json()
    assert [(p["width"], p["height"]) for p in listed] == [(64, 48), (40, 30)]
    again = client.get(f"{API}/campaigns/{new_cid}/battles/{new_battle['id']}/photos/{listed[0]['id']}", headers=gm).content
    assert again == served  # the same clean picture, kept under the same hash
    assert export(client, new_cid, gm)["battles"][0]["photos"] == shots
    assert gm_pid


def test_r12_3_a_refused_page_upload_says_why_and_stores_nothing(client, engine, make_client, settings):
    from tests.builders.pages import shown

    gm, cid, players, bid = two_player_battle(client)
    b = browser(make_client, players[0]["nickname"])
    body = {"csrf_token": TOKEN.search(b.get(f"/campaigns/{cid}/battles/{bid}").text).group(1)}
    folder = settings.var_dir / "media" / "photos"
    before = sorted(folder.iterdir()) if folder.is_dir() else []
    r = b.post(f"/campaigns/{cid}/battles/{bid}/photos", data=body, files={"file": ("b.png", bomb(9500, 9500), "image/png")})
    page = shown(b, r) if r.status_code == 303 else r
    assert page.status_code == 422 and "9500 × 9500" in page.text
    assert _rows(engine) == [] and (sorted(folder.iterdir()) if folder.is_dir() else []) == before
