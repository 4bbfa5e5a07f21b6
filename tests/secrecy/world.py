"""Three campaigns in one database, each in a state where a different secret exists, with
unique marker strings planted where each secret lives (SPEC R11.2):

- **setup**: players have joined (gold credited), a third user is invited and has not
  answered; the GM adjusted the first player's gold with a reason.
- **orders**: round 1 in Orders; each player's warband is sent (the order is secret) and the
  first player keeps a second warband at home; the GM adjusted the first player's gold. A
  third player (the *ally*, none of the six roles) is in the first player's mission alliance
  for the event (secret to everybody else, the GM too, until Battles: R8.8); the other player
  founded a guild (public) that the first player asked to join and that invited the ally
  (a request or invitation is seen by the founder and the player it concerns).
- **settlement**: the two players fought and the round is in Settlement; the first player's
  settlement names a permanent injury and a model captured by the other player, who named a
  ransom. The first player and the ally made a mission alliance for the event before Battles:
  it is public now (R8.8).

The same six people look at all three: the owner (the first player), another player, the GM,
an invited user (pending in *setup*; lapsed in the others, since hideout selection closes the
roster), an outsider and an anonymous visitor.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from tests.builders import memo
from tests.builders.accounts import PASSWORD, register, token_headers
from tests.builders.campaigns import create_campaign
from tests.builders.companies import buy
from tests.builders.maps import add_place
from tests.builders.pages import login

ROLES = ("owner", "other", "gm", "invited", "outsider", "anonymous")
NICKNAMES = {"owner": "mx-owner", "other": "mx-other", "gm": "mx-gm", "invited": "mx-invited", "outsider": "mx-outsider"}
ALLY = "mx-ally"  # a third player in some campaigns, for the owner's mission alliance; not one of the roles
ORCS = ("orcs.krusher", "orcs.ax", "orcs.ax")
BASILEANS = ("basileans.veteran-sergeant", "basileans.man-at-arms", "basileans.man-at-arms")


@dataclass(frozen=True)
class Marker:
    """A planted secret: its text (or a number, matched as a whole number), what kind of
    secret it is (a key of ORACLE), whose it is, and in which campaign."""

    text: str
    kind: str
    world: str
    owner: str = "owner"  # the role whose secret it is
    captor: str | None = None  # ransoms: the other party
    allies: tuple[str, ...] = ()  # mission alliances: the other members and invitees
    revealed: bool = False  # mission alliances: its round's Battles have begun

    def found_in(self, body: str) -> bool:
        """Text anywhere; a number only as a whole word (not inside another number or an id)."""
        return bool(markers_in([self], body))


_WORD = re.compile(r"[0-9A-Za-z]+")


def markers_in(markers: list[Marker], body: str) -> list[Marker]:
    """The markers `body` shows, as `Marker.found_in` tells, with the body's words read once
    for all the numbers (a number is found where it is a whole word): searching the body once
    for each number was an eighth of the secrecy walks' time (issue 31)."""
    words: set[str] | None = None
    shown = []
    for marker in markers:
        if marker.text.isdigit():
            if words is None:
                words = set(_WORD.findall(body))
            if marker.text in words:
                shown.append(marker)
        elif marker.text in body:
            shown.append(marker)
    return shown


# Who may see each kind of secret (SPEC R11.2, the decisions of API.md and the issues), in
# terms of the secret's owner: the oracle every surface is checked against.
ORACLE = {
    # R4.7, R11.2: orders before Battles — owner and GM.
    "order": lambda m: {m.owner, "gm"},
    # A warband that has not been in an announced battle: its roster is its owner's; the GM
    # sees the company it is built from (R11.2) but the warband pages are the owner's only.
    "warband": lambda m: {m.owner},
    # R11.2: company, gold balance, ledger — owner and GM (API.md: gold only for self and GM).
    # With the gold transfers module on, no page or answer shows the GM a balance (issue 27,
    # tests/api/test_gm_gold_R11_2.py); the GM's export still carries the figures summed from
    # the entries it holds, so the oracle cannot yet say "not the GM" there.
    "ledger": lambda m: {m.owner, "gm"},
    "gold": lambda m: {m.owner, "gm"},
    # Issue 12, R11.2: a settlement (its injuries) — the warband's owner and the GM; once
    # closed, its injuries are part of the company, which has the same audience.
    "settlement": lambda m: {m.owner, "gm"},
    # V12: a ransom — the prisoner's owner, its captor and the GM.
    "ransom": lambda m: {m.owner, m.captor, "gm"},
    # R8.8, R11.2: a mission alliance before Battles — its members and invitees only, not the
    # GM, not other players; from its round's Battles on, every member of the campaign. Its
    # marker is `data-alliance="<id>"`, which every page that shows an alliance carries, and
    # its id in the API (a structural check, test_matrix.py).
    "alliance": lambda m: {m.owner, *m.allies} | ({"owner", "other", "gm"} if m.revealed else set()),
    # R8.11: a gold transfer — its two parties only, never the GM (its note is the marker).
    "transfer": lambda m: {m.owner, *m.allies},
    # R8.12: a letter — its sender and its recipient (the GM only when a party).
    "letter": lambda m: {m.owner, *m.allies},
}


@dataclass
class World:
    name: str
    cid: int
    ids: dict[str, int] = field(default_factory=dict)
    markers: list[Marker] = field(default_factory=list)


@dataclass
class Cast:
    """The people and their ways in: API headers and logged-in page browsers per role."""

    api: dict[str, dict]
    pages: dict[str, object]
    player_ids: dict[str, dict[str, int]] = field(default_factory=dict)  # world -> role -> player_id
    worlds: dict[str, World] = field(default_factory=dict)

    @property
    def markers(self) -> list[Marker]:
        return [m for w in self.worlds.values() for m in w.markers]


def _ok(r, status=200):
    assert r.status_code == status, (r.request.method, r.request.url, r.status_code, r.text[:500])
    return r.json() if r.content and r.headers.get("content-type", "").startswith("application/json") else None


def cast(client, make_client) -> Cast:
    api = {}
    for role, nickname in NICKNAMES.items():
        register(client, nickname)
        api[role] = token_headers(client, nickname)
    api["anonymous"] = {}
    register(client, ALLY)
    api["ally"] = token_headers(client, ALLY)  # not a role: never walked, only acts
    pages = {}
    for role, nickname in NICKNAMES.items():
        pages[role] = make_client()
        login(pages[role], nickname, PASSWORD)
        pages[role].get("/")  # shows (and so ends) the welcome flash
    pages["anonymous"] = make_client()
    return Cast(api=api, pages=pages)


def _campaign(client, c: Cast, name: str, n_places: int = 4, ally: bool = False, **extra) -> tuple[int, list[dict]]:
    """With `ally`, the ally is invited too and a last place is the ally's hideout."""
    gm = c.api["gm"]
    cid = create_campaign(client, gm, name=name, max_players=4 if ally else 3, starting_gold=400, **extra)["id"]
    places = [add_place(client, gm, cid, f"{name} place {i}", hideout_slot=i < 2) for i in range(n_places)]
    nicknames = [NICKNAMES[role] for role in ("owner", "other", "invited")]
    if ally:
        places.append(add_place(client, gm, cid, f"{name} place {n_places}", hideout_slot=True))
        nicknames.append(ALLY)
    for nickname in nicknames:
        _ok(client.post(f"/api/v1/campaigns/{cid}/invitations", json={"nickname": nickname}, headers=gm), 201)
    return cid, places


def _accept(client, c: Cast, world: str, cid: int) -> None:
    c.player_ids[world] = {}
    for role in ("owner", "other"):
        joined = _ok(client.post(f"/api/v1/campaigns/{cid}/invitations/accept", headers=c.api[role]))
        c.player_ids[world][role] = joined["player_id"]


def _accept_ally(client, c: Cast, cid: int) -> int:
    """The ally joins (a player, but not one of the roles: kept out of `player_ids`)."""
    return _ok(client.post(f"/api/v1/campaigns/{cid}/invitations/accept", headers=c.api["ally"]))["player_id"]


def _adjust(client, c: Cast, world: str, cid: int, role: str, amount: int, reason: str) -> None:
    body = {"player_id": c.player_ids[world][role], "amount": amount, "reason": reason}
    _ok(client.post(f"/api/v1/campaigns/{cid}/ledger/adjustments", json=body, headers=c.api["gm"]), 201)


def _gold(client, c: Cast, cid: int, role: str) -> int:
    return _ok(client.get(f"/api/v1/campaigns/{cid}/ledger", headers=c.api[role]))["balance"]


def _set_gold(client, c: Cast, world: str, cid: int, role: str, target: int, reason: str) -> None:
    _adjust(client, c, world, cid, role, target - _gold(client, c, cid, role), reason)
    assert _gold(client, c, cid, role) == target


def _run(client, c: Cast, cid: int, places: list[dict], world: str, ally: bool = False) -> None:
    gm = c.api["gm"]
    _ok(client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "hideouts"}, headers=gm))
    for role, place in zip(("owner", "other"), places):
        _ok(client.post(f"/api/v1/campaigns/{cid}/hideouts", json={"place_id": place["id"]}, headers=c.api[role]), 201)
    if ally:
        _ok(client.post(f"/api/v1/campaigns/{cid}/hideouts", json={"place_id": places[-1]["id"]}, headers=c.api["ally"]), 201)
    _ok(client.post(f"/api/v1/campaigns/{cid}/status", json={"status": "running"}, headers=gm))


def _alliance(client, c: Cast, cid: int, event_id: int, ally_player: int) -> int:
    """The owner makes a mission alliance for the event, inviting the ally, who accepts; both pay."""
    body = {"event_id": event_id, "invite_player_ids": [ally_player]}
    aid = _ok(client.post(f"/api/v1/campaigns/{cid}/alliances", json=body, headers=c.api["owner"]), 201)["id"]
    _ok(client.post(f"/api/v1/campaigns/{cid}/alliances/{aid}/accept", headers=c.api["ally"]))
    return aid


def alliance_marker(aid: int, world: str, revealed: bool = False) -> Marker:
    return Marker(f'data-alliance="{aid}"', "alliance", world, allies=("ally",), revealed=revealed)


def _phase(client, c: Cast, cid: int, phase: str) -> None:
    _ok(client.post(f"/api/v1/campaigns/{cid}/phase", json={"phase": phase}, headers=c.api["gm"]))


def _warband(client, c: Cast, cid: int, role: str, models: list[dict], name: str) -> int:
    body = {"name": name, "model_ids": [m["id"] for m in models]}
    return _ok(client.post(f"/api/v1/campaigns/{cid}/warbands", json=body, headers=c.api[role]), 201)["id"]


def _buy(client, c: Cast, cid: int, role: str, keys, faction=None) -> list[dict]:
    return buy(client, cid, {"headers": c.api[role]}, *keys, faction=faction)


def _item(client, c: Cast, cid: int, role: str) -> int:
    r = client.post(f"/api/v1/campaigns/{cid}/company/items", json={"item": "item.bandages"}, headers=c.api[role])
    return _ok(r, 201)["id"]


def _png() -> bytes:
    from io import BytesIO

    from PIL import Image

    out = BytesIO()
    Image.new("RGB", (8, 6), (90, 120, 60)).save(out, format="PNG")
    return out.getvalue()


def setup_world(client, c: Cast) -> World:
    # Gold transfers off: the GM's view of balances (R11.2) is walked here, the others have them on.
    cid, places = _campaign(client, c, "Matrix Setup", modules={"gold_transfers": False})
    _accept(client, c, "setup", cid)
    models = _buy(client, c, cid, "owner", ORCS, faction="orcs")
    item = _item(client, c, cid, "owner")
    _set_gold(client, c, "setup", cid, "owner", 941, "SECRET-LEDGER-s0a1")
    _set_gold(client, c, "setup", cid, "other", 857, "SECRET-LEDGER-s0b2")
    w = World(
        "setup",
        cid,
        ids={
            "place": places[0]["id"],
            "place_b": places[1]["id"],
            "model": models[0]["id"],
            "item": item,
            "step": 1,
            "owner_player": c.player_ids["setup"]["owner"],
            "other_player": c.player_ids["setup"]["other"],
        },
    )
    w.markers = [
        Marker("SECRET-LEDGER-s0a1", "ledger", "setup"),
        Marker("SECRET-LEDGER-s0b2", "ledger", "setup", owner="other"),
        Marker("941", "gold", "setup"),
        Marker("857", "gold", "setup", owner="other"),
    ]
    return w


def orders_world(client, c: Cast) -> World:
    cid, places = _campaign(client, c, "Matrix Orders", ally=True, modules={"paths": True})
    gm = c.api["gm"]
    path_ids = [
        _ok(
            client.post(
                f"/api/v1/campaigns/{cid}/paths", json={"from_id": places[a]["id"], "to_id": places[b]["id"]}, headers=gm
            ),
            201,
        )["id"]
        for a, b in ((0, 2), (1, 3))
    ]
    image = client.put(f"/api/v1/campaigns/{cid}/maps/top/image", files={"file": ("map.png", _png(), "image/png")}, headers=gm)
    _ok(image)
    media = _ok(client.get(f"/api/v1/campaigns/{cid}/map", headers=gm))["image"]["url"].rsplit("/", 1)[-1]
    inside = client.put(
        f"/api/v1/campaigns/{cid}/maps/{places[2]['id']}/image", files={"file": ("in.png", _png(), "image/png")}, headers=gm
    )
    _ok(inside)
    _accept(client, c, "orders", cid)
    ally = _accept_ally(client, c, cid)
    _run(client, c, cid, places, "orders", ally=True)
    event = _ok(
        client.post(f"/api/v1/campaigns/{cid}/events", json={"place_id": places[2]["id"], "title": "Matrix ambush"}, headers=gm),
        201,
    )
    # A second event, at the ally's hideout where nobody goes, for alliances made in the tests.
    event_b = _ok(
        client.post(f"/api/v1/campaigns/{cid}/events", json={"place_id": places[4]["id"], "title": "Matrix watch"}, headers=gm),
        201,
    )
    mine = _buy(client, c, cid, "owner", ORCS + ORCS, faction="orcs")
    theirs = _buy(client, c, cid, "other", BASILEANS, faction="basileans")
    item = _item(client, c, cid, "owner")
    sent = _warband(client, c, cid, "owner", mine[:3], "SECRET-ORDER-7f3a")
    home = _warband(client, c, cid, "owner", mine[3:], "SECRET-BAND-2c5e")
    other_sent = _warband(client, c, cid, "other", theirs, "SECRET-ORDER-b04d")
    # The other player's guild, which the owner asked to join (paid) and which invited the ally.
    guild = _ok(client.post(f"/api/v1/campaigns/{cid}/guilds", json={"name": "Matrix Guild"}, headers=c.api["other"]), 201)["id"]
    request = _ok(client.post(f"/api/v1/campaigns/{cid}/guilds/{guild}/requests", headers=c.api["owner"]), 201)["id"]
    invitation = _ok(
        client.post(f"/api/v1/campaigns/{cid}/guilds/{guild}/invitations", json={"player_id": ally}, headers=c.api["other"]), 201
    )["id"]
    alliance = _alliance(client, c, cid, event["id"], ally)
    _phase(client, c, cid, "orders")
    _ok(client.put(f"/api/v1/campaigns/{cid}/warbands/{sent}/order", json={"event_id": event["id"]}, headers=c.api["owner"]))
    _ok(
        client.put(
            f"/api/v1/campaigns/{cid}/warbands/{other_sent}/order", json={"place_id": places[3]["id"]}, headers=c.api["other"]
        )
    )
    # The ally sends the owner gold with a note (R8.11): only the two of them see it.
    _ok(
        client.post(
            f"/api/v1/campaigns/{cid}/transfers",
            json={"to_player_id": c.player_ids["orders"]["owner"], "amount": 17, "note": "SECRET-TRANSFER-4e7a"},
            headers=c.api["ally"],
        ),
        201,
    )
    # Letters (R8.12): the owner writes to the ally; the other player writes to the GM.
    letter = _ok(
        client.post(
            f"/api/v1/campaigns/{cid}/letters",
            json={"to_player_id": ally, "subject": "SECRET-LETTER-8d2f", "body": "SECRET-LETTERBODY-1a9c"},
            headers=c.api["owner"],
        ),
        201,
    )["id"]
    letter_gm = _ok(
        client.post(
            f"/api/v1/campaigns/{cid}/letters",
            json={"to_gm": True, "subject": "SECRET-LETTER-g3c1", "body": "SECRET-LETTERBODY-g4d2"},
            headers=c.api["other"],
        ),
        201,
    )["id"]
    # Read already, so that the walk's own visits (opening a letter marks it read) change nothing.
    _ok(client.post(f"/api/v1/campaigns/{cid}/letters/{letter_gm}/read", headers=c.api["gm"]))
    _set_gold(client, c, "orders", cid, "owner", 733, "SECRET-LEDGER-91bc")
    _set_gold(client, c, "orders", cid, "other", 629, "SECRET-LEDGER-o1b2")
    w = World(
        "orders",
        cid,
        ids={
            "place": places[2]["id"],
            "place_b": places[3]["id"],
            "event": event["id"],
            "warband": sent,
            "warband_home": home,
            "other_warband": other_sent,
            "model": mine[0]["id"],
            "other_model": theirs[0]["id"],
            "item": item,
            "path": path_ids[0],
            "media": media,
            "place_a": places[0]["id"],
            "place_map": places[2]["id"],
            "owner_player": c.player_ids["orders"]["owner"],
            "other_player": c.player_ids["orders"]["other"],
            "ally_player": ally,
            "event_b": event_b["id"],
            "alliance": alliance,
            "guild": guild,
            "guild_request": request,
            "guild_invitation": invitation,
            "letter": letter,
            "letter_gm": letter_gm,
        },
    )
    w.markers = [
        Marker("SECRET-ORDER-7f3a", "order", "orders"),
        Marker("SECRET-ORDER-b04d", "order", "orders", owner="other"),
        Marker("SECRET-BAND-2c5e", "warband", "orders"),
        Marker("SECRET-LEDGER-91bc", "ledger", "orders"),
        Marker("SECRET-LEDGER-o1b2", "ledger", "orders", owner="other"),
        Marker("733", "gold", "orders"),
        Marker("629", "gold", "orders", owner="other"),
        alliance_marker(alliance, "orders"),
        Marker("SECRET-TRANSFER-4e7a", "transfer", "orders"),
        Marker("SECRET-LETTER-8d2f", "letter", "orders"),
        Marker("SECRET-LETTERBODY-1a9c", "letter", "orders"),
        Marker("SECRET-LETTER-g3c1", "letter", "orders", owner="other", allies=("gm",)),
        Marker("SECRET-LETTERBODY-g4d2", "letter", "orders", owner="other", allies=("gm",)),
    ]
    return w


def settlement_world(client, c: Cast) -> World:
    cid, places = _campaign(client, c, "Matrix Settlement", ally=True)
    _accept(client, c, "settlement", cid)
    ally = _accept_ally(client, c, cid)
    _run(client, c, cid, places, "settlement", ally=True)
    gm = c.api["gm"]
    event = _ok(
        client.post(f"/api/v1/campaigns/{cid}/events", json={"place_id": places[2]["id"], "title": "Matrix field"}, headers=gm),
        201,
    )
    alliance = _alliance(client, c, cid, event["id"], ally)  # revealed when Battles begin
    mine = _buy(client, c, cid, "owner", ORCS + ORCS, faction="orcs")
    theirs = _buy(client, c, cid, "other", BASILEANS, faction="basileans")
    item = _item(client, c, cid, "owner")
    fought = _warband(client, c, cid, "owner", mine[:3], "Public Raiders")
    home = _warband(client, c, cid, "owner", mine[3:], "SECRET-BAND-w2c9")
    other_fought = _warband(client, c, cid, "other", theirs, "Public Guard")
    _phase(client, c, cid, "orders")
    for role, wid in (("owner", fought), ("other", other_fought)):
        _ok(client.put(f"/api/v1/campaigns/{cid}/warbands/{wid}/order", json={"event_id": event["id"]}, headers=c.api[role]))
    _phase(client, c, cid, "battles")
    (battle,) = _ok(client.get(f"/api/v1/campaigns/{cid}/battles", headers=gm))["items"]
    bid = battle["id"]
    base = f"/api/v1/campaigns/{cid}/battles/{bid}"
    _ok(client.post(f"{base}/result", json={"winner_player_ids": [c.player_ids["settlement"]["other"]]}, headers=c.api["other"]))
    _ok(client.post(f"{base}/confirm", headers=c.api["owner"]))
    _phase(client, c, cid, "settlement")
    steps = {
        "course": {"taken_out": [mine[0]["id"], mine[1]["id"]]},
        "injuries": [
            {"model_id": mine[0]["id"], "result": "permanent", "text": "SECRET-INJURY-5d21"},
            {"model_id": mine[1]["id"], "result": "captured", "captor_player_id": c.player_ids["settlement"]["other"]},
        ],
    }
    _ok(client.put(f"{base}/settlements/{fought}", json=steps, headers=c.api["owner"]))
    _ok(client.post(f"{base}/settlements/{fought}/close", headers=c.api["owner"]))
    other_steps = {
        "course": {"taken_out": [theirs[0]["id"]]},
        "injuries": [{"model_id": theirs[0]["id"], "result": "permanent", "text": "SECRET-INJURY-b7e3"}],
    }
    _ok(client.put(f"{base}/settlements/{other_fought}", json=other_steps, headers=c.api["other"]))
    (ransom,) = _ok(client.get(f"/api/v1/campaigns/{cid}/ransoms", headers=gm))
    _ok(client.post(f"/api/v1/campaigns/{cid}/ransoms/{ransom['id']}/offer", json={"price": 389}, headers=c.api["other"]))
    _set_gold(client, c, "settlement", cid, "owner", 517, "SECRET-LEDGER-w2a3")
    _set_gold(client, c, "settlement", cid, "other", 463, "SECRET-LEDGER-w2b4")
    w = World(
        "settlement",
        cid,
        ids={
            "place": places[2]["id"],
            "place_b": places[3]["id"],
            "event": event["id"],
            "battle": bid,
            "warband": fought,
            "warband_home": home,
            "other_warband": other_fought,
            "model": mine[3]["id"],
            "other_model": theirs[0]["id"],
            "injured_model": mine[0]["id"],
            "item": item,
            "ransom": ransom["id"],
            "owner_player": c.player_ids["settlement"]["owner"],
            "other_player": c.player_ids["settlement"]["other"],
            "ally_player": ally,
            "alliance": alliance,
        },
    )
    w.markers = [
        Marker("SECRET-INJURY-5d21", "settlement", "settlement"),
        Marker("SECRET-INJURY-b7e3", "settlement", "settlement", owner="other"),
        Marker("389", "ransom", "settlement", captor="other"),
        Marker("SECRET-BAND-w2c9", "warband", "settlement"),
        Marker("SECRET-LEDGER-w2a3", "ledger", "settlement"),
        Marker("SECRET-LEDGER-w2b4", "ledger", "settlement", owner="other"),
        Marker("517", "gold", "settlement"),
        Marker("463", "gold", "settlement", owner="other"),
        alliance_marker(alliance, "settlement", revealed=True),
    ]
    return w


def build(client, make_client, engine) -> Cast:
    from sqlmodel import Session, select

    from app.accounts.models import ApiToken, User

    c = cast(client, make_client)
    for make in (setup_world, orders_world, settlement_world):
        w = make(client, c)
        c.worlds[w.name] = w
    with Session(engine) as s:
        token_id = s.exec(
            select(ApiToken.id).join(User, User.id == ApiToken.user_id).where(User.nickname == NICKNAMES["owner"])
        ).first()
    for w in c.worlds.values():
        w.ids["token_id"] = token_id
    return c


def kept(client, make_client, engine) -> Cast:
    """`build`, made once per worker and written back for the tests after (tests/builders/memo.py)."""
    return memo.kept_with_browsers("secrecy cast", lambda: build(client, make_client, engine), make_client, lambda c: c.pages)
