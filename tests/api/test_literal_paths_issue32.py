"""A literal path segment names a resource, never an id (found by schemathesis on issue 32's
routes): a method a route does not take answers 405 with its Allow header — also with an
Idempotency-Key used before — and a malformed key is refused even where keys are never kept."""

from __future__ import annotations

from sqlalchemy import func
from sqlmodel import Session, select

from app.accounts.models import User
from tests.builders.accounts import user
from tests.builders.campaigns import create_campaign
from tests.builders.responses import error_code

API = "/api/v1"


def test_r11_5_a_method_the_literal_route_does_not_take_is_405_not_a_missing_id(client):
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm)["id"]
    for method, path, allow in (
        ("PATCH", f"/campaigns/{cid}/places/bulk", "POST"),  # not the place "bulk" of /places/{pid}
        ("PATCH", f"/campaigns/{cid}/events/library", "GET"),
        ("PUT", "/campaigns/import", "POST"),  # not the campaign "import"
    ):
        r = client.request(method, API + path, json={"name": "x"}, headers=gm)
        assert (r.status_code, r.headers.get("allow"), error_code(r)) == (405, allow, "method_not_allowed"), path
    # An id that does not exist is still simply not found.
    assert client.patch(f"{API}/campaigns/{cid}/places/99", json={"name": "x"}, headers=gm).status_code == 404


def test_r11_6_a_key_used_before_on_another_method_of_a_literal_path_is_405(client):
    gm = user(client, "gamemaster")
    cid = create_campaign(client, gm)["id"]
    keyed = {**gm, "Idempotency-Key": "one-key"}
    assert (
        client.post(f"{API}/campaigns/{cid}/places/bulk", json={"places": [{"name": "Ford"}]}, headers=keyed).status_code == 201
    )
    r = client.patch(f"{API}/campaigns/{cid}/places/bulk", json={"places": [{"name": "Ford"}]}, headers=keyed)
    assert (r.status_code, r.headers.get("allow")) == (405, "POST")
    assert len(client.get(f"{API}/campaigns/{cid}/places", headers=gm).json()) == 1


def test_r11_6_a_malformed_key_is_refused_where_keys_are_never_kept_and_nothing_is_made(client, engine):
    r = client.post(
        f"{API}/users", json={"nickname": "keyed", "password": "long enough 1"}, headers={"Idempotency-Key": "k" * 300}
    )
    assert r.status_code == 422 and error_code(r) == "idempotency_key_invalid"
    with Session(engine) as s:
        assert s.exec(select(func.count()).select_from(User)).one() == 0
