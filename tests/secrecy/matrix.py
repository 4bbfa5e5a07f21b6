"""The secrecy matrix (SPEC R11.2, ARCHITECTURE "Visibility"): every route the app registers,
what kind of surface it is, who may use it, and which kinds of secret it may show. The
oracle (world.ORACLE) says who may see each kind of secret; tests/secrecy/test_matrix.py walks
every route below for every role in every planted world and checks the answer against both.

A new route without an entry here fails the suite (test_every_route_is_in_the_matrix). To add
one, say what it is:

- `Read(surface, who, shows)`: a GET that answers something readable. `who` are the roles it
  answers (others are refused: outsiders and anonymous are told nothing exists); `shows` are
  the kinds of secret it may show — to those the oracle allows, and only those. A marker of
  a kind not listed, or seen by a role the oracle does not allow, fails.
- `Action(who, body)`: a write. It is sent as every role *not* in `who`, with a valid body, and
  must be refused (404 to outsiders, the login to anonymous visitors) and change nothing.
- `Other(why)`: static files and the like, with the reason they need no check.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tests.secrecy.world import ROLES

ANYONE = frozenset(ROLES)
USERS = ANYONE - {"anonymous"}
MEMBERS = frozenset({"owner", "other", "gm"})
INVITEES = MEMBERS | {"invited"}
PLAYERS = frozenset({"owner", "other"})
GM = frozenset({"gm"})
OWNER = frozenset({"owner"})
OTHER = frozenset({"other"})
OWNER_GM = frozenset({"owner", "gm"})
NOBODY = frozenset()

# The surfaces of R11.2 ("HTML pages, partials, the JSON API, live updates and exports alike").
SURFACES = {"page", "partial", "api", "map", "chronicle", "dashboard", "media", "docs", "stream", "export"}
# Surfaces the app does not have yet: when a route of one lands, its entry names the surface.
NOT_YET: dict = {}


@dataclass(frozen=True)
class V:
    """One way of asking a route: a query string and path parameters (names of ids in the
    world, see world.py), optionally with its own audience and secrets."""

    query: str = ""
    params: tuple[tuple[str, str], ...] = ()
    who: frozenset | None = None
    shows: frozenset | None = None


@dataclass(frozen=True)
class Read:
    surface: str
    who: frozenset
    shows: frozenset = frozenset()
    variants: tuple[V, ...] = (V(),)
    tolerate: frozenset = frozenset()  # statuses an allowed role may get in some world (state)
    check: str | None = None  # an extra structural check of a JSON answer (see test_matrix.py)
    why: str = ""


@dataclass(frozen=True)
class Action:
    who: frozenset
    body: dict | None = None
    files: bool = False
    params: tuple[tuple[str, str], ...] = ()
    why: str = ""


@dataclass(frozen=True)
class Other:
    why: str


def _s(*kinds: str) -> frozenset:
    return frozenset(kinds)


API = "/api/v1"
C = "/campaigns/{cid}"
OWNER_COMPANY = V("?player_id={owner_player}", who=OWNER_GM)
OTHER_COMPANY = V("?player_id={other_player}", who=frozenset({"other", "gm"}))
CHECK = {"name": "Matrix check", "model_ids": "{model}"}
# The guild's pending request and invitation (orders world), and who decides them.
REQUEST = (("rid", "guild_request"),)
INVITATION = (("iid", "guild_invitation"),)

MATRIX: dict[tuple[str, str], Read | Action | Other] = {
    # --- outside any campaign ---------------------------------------------------------------
    ("GET", "/"): Read("dashboard", ANYONE, why="the home page lists the user's campaigns and invitations"),
    ("GET", "/login"): Read("page", ANYONE),
    ("POST", "/login"): Action(ANYONE, {"nickname": "mx-owner", "password": "wrong password here"}, why="anyone may try"),
    ("GET", "/register"): Read("page", ANYONE),
    ("POST", "/register"): Action(ANYONE, why="anyone may register"),
    ("POST", "/logout"): Action(ANYONE, why="logging out is always allowed"),
    ("POST", "/language"): Action(ANYONE, why="anyone picks a language"),
    ("GET", "/account"): Read("page", USERS),
    ("POST", "/account/password"): Action(USERS, {"current": "x", "new": "y"}),
    ("POST", "/account/time-zone"): Action(USERS, {"time_zone": "Europe/Warsaw"}, why="the user's own setting"),
    ("POST", "/account/tokens"): Action(USERS, {"name": "x"}),
    ("POST", "/account/tokens/{token_id}/revoke"): Action(
        OWNER, why="the owner's own API token; anybody else is told it does not exist"
    ),
    ("POST", "/account/sessions/revoke-others"): Action(USERS),
    ("GET", "/catalog"): Read("page", ANYONE),
    ("GET", "/catalog/{key}"): Read("page", ANYONE),
    ("GET", "/campaigns/new"): Read("page", USERS),
    ("POST", "/campaigns/new"): Action(USERS, {"name": "Matrix new"}),
    ("GET", "/media/{name}"): Read("media", ANYONE, why="images (covers, maps) are served by an unguessable name"),
    ("MOUNT", "/static"): Other("htmx, the stylesheet and scripts: the same for everyone"),
    ("GET", "/favicon.ico"): Other("a redirect to the icon: the same for everyone"),
    ("GET", "/api/docs"): Read("docs", ANYONE),
    ("GET", API + "/openapi.json"): Read("docs", ANYONE),
    ("POST", API + "/users"): Action(ANYONE, why="anyone may register"),
    ("POST", API + "/auth/tokens"): Action(ANYONE, why="anyone may log in"),
    ("DELETE", API + "/auth/tokens/current"): Action(USERS),
    ("GET", API + "/me"): Read("api", USERS, why="the caller's campaigns and invitations"),
    ("PATCH", API + "/me"): Action(USERS, {"locale": "pl"}),
    ("POST", API + "/campaigns"): Action(USERS, {"name": "Matrix new"}),
    ("GET", API + "/catalog/factions"): Read("api", ANYONE),
    ("GET", API + "/catalog/factions/{key}"): Read("api", ANYONE),
    ("GET", API + "/catalog/items"): Read("api", ANYONE),
    ("GET", API + "/catalog/mercenaries"): Read("api", ANYONE),
    ("GET", API + "/catalog/scenarios"): Read("api", ANYONE),
    # --- a campaign: pages ------------------------------------------------------------------
    ("GET", C): Read(
        "dashboard", INVITEES, why="the campaign's dashboard (its counts and advice); an invitee sees the invitation"
    ),
    ("GET", C + "/setup/{step}"): Read("page", GM),
    ("POST", C + "/setup/{step}"): Action(GM, {"name": "Renamed"}),
    ("POST", C + "/status"): Action(GM, {"status": "hideouts"}),
    ("POST", C + "/hideouts"): Action(PLAYERS, {"place_id": "{place_b}"}),
    ("POST", C + "/invitation/{decision}"): Action(
        frozenset({"invited"}), params=(("decision", "=decline"),), why="only the invitee answers"
    ),
    ("GET", C + "/players"): Read("page", MEMBERS),
    ("POST", C + "/invitations"): Action(GM, {"nickname": "mx-outsider"}),
    ("GET", C + "/rules"): Read("page", MEMBERS),
    ("GET", C + "/chronicle"): Read("chronicle", MEMBERS),
    ("GET", C + "/map"): Read(
        "map",
        MEMBERS,
        _s("warband", "alliance"),
        variants=(V(), V("?place={place}"), V("?of={place_map}")),
        why="a place's sheet offers the viewer's own unsent warbands and shows their own mission alliances for its events",
    ),
    ("GET", C + "/map/places/{pid}"): Read(
        "partial", MEMBERS, _s("warband", "alliance"), variants=(V(), V(params=(("pid", "place_b"),)))
    ),
    ("GET", C + "/map/new-place"): Read("partial", GM),
    ("POST", C + "/places/{pid}/move"): Action(GM, {"x": "10", "y": "10"}),
    ("POST", C + "/map/image"): Action(GM, files=True),
    ("POST", C + "/paths"): Action(GM, {"from_id": "{place}", "to_id": "{place_b}"}),
    ("POST", C + "/paths/{path_id}"): Action(GM, {"one_way": "1"}),
    ("POST", C + "/paths/{path_id}/delete"): Action(GM),
    ("POST", C + "/places/{pid}/map"): Action(GM, files=True),
    ("GET", C + "/places"): Read("page", MEMBERS),
    ("GET", C + "/places/{pid}/edit"): Read("partial", GM),
    ("POST", C + "/places"): Action(GM, {"name": "Matrix place", "income": "1", "x": "5", "y": "5"}),
    ("POST", C + "/places/bulk"): Action(GM, {"lines": "Matrix bulk place; 1; ⚑"}),
    ("POST", C + "/places/{pid}"): Action(GM, {"name": "Renamed", "income": "1", "x": "5", "y": "5"}),
    ("POST", C + "/places/{pid}/delete"): Action(GM),
    ("GET", C + "/events"): Read("page", MEMBERS),
    ("POST", C + "/events"): Action(GM, {"place_id": "{place}", "title": "Matrix event", "duration": "1"}),
    ("POST", C + "/events/{eid}"): Action(GM, {"title": "Renamed", "duration": "1"}),
    ("POST", C + "/events/{eid}/end"): Action(GM),
    ("POST", C + "/events/{eid}/reuse"): Action(GM),
    ("GET", C + "/company"): Read(
        "page",
        MEMBERS,
        _s("gold", "settlement"),
        variants=(V(), OWNER_COMPANY, OTHER_COMPANY),
        why="a player's company (with the injuries its settlements applied); the GM is sent on "
        "to the companies page, or picks one with ?player_id",
    ),
    ("POST", C + "/company/faction"): Action(PLAYERS, {"faction": "undead"}),
    ("POST", C + "/company/confirm"): Action(PLAYERS),
    ("POST", C + "/company/import"): Action(PLAYERS, files=True, why="R12.15: a roster file bought into the company"),
    ("POST", C + "/company/models/{mid}/sell"): Action(OWNER),
    ("POST", C + "/company/models/{mid}/name"): Action(OWNER, {"given_name": "Matrix"}, why="issue 29: a model's own name"),
    ("POST", C + "/company/items/{iid}/sell"): Action(OWNER),
    ("POST", C + "/company/items/{iid}/assign"): Action(OWNER, {"model_id": "{model}"}),
    ("GET", C + "/shop"): Read("page", PLAYERS, _s("gold")),
    ("POST", C + "/shop/models"): Action(PLAYERS, {"profile": "orcs.ax"}),
    ("POST", C + "/shop/items"): Action(PLAYERS, {"item": "item.bandages"}),
    ("GET", C + "/companies"): Read(
        "page",
        GM,
        _s("gold"),
        variants=(V(), V("?player_id={owner_player}"), V("?player_id={other_player}")),
        why="the GM's view of every company",
    ),
    ("POST", C + "/rewards"): Action(GM, {"player_id": "{owner_player}", "item": "item.bandages"}),
    ("GET", C + "/ledger"): Read(
        "page",
        MEMBERS,
        _s("ledger", "gold", "transfer"),
        variants=(V(), OWNER_COMPANY, OTHER_COMPANY),
        check="ledger",
        why="own ledger; the GM is sent on to the companies page, or picks one with ?player_id; "
        "a mission-alliance fee before Battles is its payer's alone (R8.8)",
    ),
    ("POST", C + "/ledger/adjustments"): Action(GM, {"player_id": "{owner_player}", "amount": "5", "reason": "Matrix"}),
    ("GET", C + "/warbands"): Read(
        "page",
        MEMBERS,
        _s("order", "warband", "alliance"),
        why="own warbands (the GM has none) and own mission alliances while orders are given",
    ),
    ("GET", C + "/warbands/new"): Read(
        "page", PLAYERS, _s("order", "warband"), why="the builder names the warband each model is in"
    ),
    ("GET", C + "/warbands/{wid}/edit"): Read(
        "page", OWNER, _s("order", "warband"), variants=(V(), V(params=(("wid", "warband_home"),)))
    ),
    ("POST", C + "/warbands/check"): Action(PLAYERS, CHECK, why="the builder's live check (changes nothing, answers a partial)"),
    ("POST", C + "/warbands/save"): Action(PLAYERS, CHECK),
    ("POST", C + "/warbands/{wid}/disband"): Action(OWNER),
    ("POST", C + "/warbands/{wid}/take-out"): Action(
        OWNER, {"model_id": "{model}"}, why="R4.7: takes a model that cannot fight out"
    ),
    ("GET", C + "/send"): Read(
        "page",
        OWNER,
        _s("order", "warband", "alliance"),
        variants=(V("?warband={warband}&event={event}"), V("?warband={warband_home}&place={place_b}")),
        why="redirects anyone to the warband's send page (reading nothing itself), which checks who asks",
    ),
    ("GET", C + "/warbands/{wid}/send"): Read(
        "page", OWNER, _s("order", "warband", "alliance"), variants=(V(), V(params=(("wid", "warband_home"),)))
    ),
    ("POST", C + "/warbands/{wid}/send"): Action(OWNER, {"target": "place:{place_b}"}, params=(("wid", "warband_home"),)),
    ("POST", C + "/warbands/{wid}/cancel"): Action(GM, why="R4.6: only the GM undoes an order"),
    ("GET", C + "/orders"): Read(
        "page", MEMBERS, _s("order", "alliance"), why="own orders (all for the GM); own mission alliances"
    ),
    ("GET", C + "/battles"): Read("page", MEMBERS),
    ("GET", C + "/battles/{bid}"): Read("page", MEMBERS),
    ("POST", C + "/battles/{bid}/result"): Action(PLAYERS, {"winner": "{owner_player}"}, why="participants"),
    ("POST", C + "/battles/{bid}/confirm"): Action(PLAYERS, why="participants"),
    ("POST", C + "/battles/{bid}/dispute"): Action(PLAYERS, {"reason": "Matrix"}, why="participants"),
    ("POST", C + "/battles/{bid}/resolve"): Action(GM, {"winner": "{owner_player}"}),
    # The battle clock (issue 18): public like the battle; its players and the GM run it.
    ("POST", C + "/battles/{bid}/clock"): Action(MEMBERS, {"action": "start"}, why="the battle's players and the GM"),
    ("POST", C + "/clock-settings"): Action(GM, {"minutes_per_side": "30", "max_turns": "6", "extra_turn_on": "4"}),
    ("POST", C + "/events/{eid}/clock-settings"): Action(GM, {"own": "on", "max_turns": "5", "extra_turn_on": "none"}),
    ("POST", C + "/phase"): Action(GM, {"phase": "twilight"}),
    ("POST", C + "/end-round"): Action(GM, {"round": "1"}),
    ("GET", C + "/twilight"): Read("page", MEMBERS),
    ("POST", C + "/twilight/choices"): Action(GM, {"place_id": "{place}", "player_id": "{owner_player}"}),
    ("GET", C + "/battles/{bid}/settlements/{wid}"): Read(
        "page", OWNER_GM, _s("settlement"), variants=(V(), V(params=(("wid", "other_warband"),), who=frozenset({"other", "gm"})))
    ),
    ("POST", C + "/battles/{bid}/settlements/{wid}"): Action(OWNER, {"step": "course"}),
    ("POST", C + "/battles/{bid}/settlements/{wid}/reopen"): Action(GM),
    ("GET", C + "/ransoms"): Read("page", MEMBERS, _s("ransom"), why="the prisoner's owner, its captor and the GM see a ransom"),
    ("POST", C + "/ransoms/{rid}/{decision}"): Action(
        OWNER, params=(("decision", "=refuse"),), why="the prisoner's owner pays or refuses (the captor offers: API)"
    ),
    # Guilds (R8.1-R8.6): public; a request or invitation is seen by the founder and the player
    # it concerns. In the orders world the other player founded the guild, the owner asked to
    # join and the ally (not a role) is invited.
    ("GET", C + "/guilds"): Read("page", MEMBERS, _s("gold"), why="public guilds; the viewer's own gold beside the costs"),
    ("POST", C + "/guilds"): Action(PLAYERS, {"name": "Matrix new guild"}),
    ("POST", C + "/guilds/{gid}/requests"): Action(PLAYERS),
    ("POST", C + "/guilds/{gid}/requests/{rid}/{decision}"): Action(
        OTHER, params=REQUEST + (("decision", "=accept"),), why="the founder decides"
    ),
    ("POST", C + "/guilds/{gid}/invitations"): Action(OTHER, {"player_id": "{owner_player}"}, why="the founder invites"),
    ("POST", C + "/guilds/{gid}/invitations/{iid}/{decision}"): Action(
        NOBODY, params=INVITATION + (("decision", "=accept"),), why="only the invitee (the ally, not a role) answers"
    ),
    ("POST", C + "/guilds/{gid}/upgrade"): Action(OTHER, why="the founder"),
    ("POST", C + "/guilds/{gid}/leave"): Action(NOBODY, why="a member who is not the founder: no role is one"),
    ("POST", C + "/guilds/{gid}/dissolve"): Action(OTHER, why="the founder"),
    ("POST", C + "/warbands/{wid}/position"): Action(
        GM, {"place_id": "{place_b}"}, why="the GM places a warband (movement, R9.8)"
    ),
    # Gold transfers (R8.11) and letters (R8.12): only their parties see them.
    ("GET", C + "/transfers/new"): Read(
        "page",
        PLAYERS,
        _s("gold", "transfer"),
        variants=(V(), V("?to={other_player}")),
        tolerate=frozenset({409}),  # the module is off in the setup world
        why="the form shows the player's own gold and own recent transfers",
    ),
    ("POST", C + "/transfers"): Action(
        PLAYERS, {"to_player_id": "{other_player}", "amount": "5", "note": "Matrix", "confirm": "1"}
    ),
    ("GET", C + "/letters"): Read("page", MEMBERS, _s("letter"), variants=(V(), V("?box=out"))),
    ("GET", C + "/letters/new"): Read("page", MEMBERS, variants=(V(), V("?to={other_player}"), V("?to=gm"))),
    ("GET", C + "/letters/{lid}"): Read(
        "page", OWNER, _s("letter"), variants=(V(), V(params=(("lid", "letter_gm"),), who=frozenset({"other", "gm"})))
    ),
    ("POST", C + "/letters"): Action(MEMBERS, {"to": "{other_player}", "subject": "Matrix", "body": "Matrix"}),
    ("POST", C + "/letters/preview"): Action(
        MEMBERS, {"to": "{other_player}", "subject": "Matrix", "body": "Matrix"}, why="changes nothing; members only"
    ),
    ("POST", C + "/letters/{lid}/reply"): Action(frozenset({"other", "gm"}), {"body": "Matrix"}, params=(("lid", "letter_gm"),)),
    ("POST", C + "/letters/{lid}/read"): Action(GM, params=(("lid", "letter_gm"),), why="the recipient"),
    ("POST", C + "/letters/{lid}/unread"): Action(GM, params=(("lid", "letter_gm"),), why="the recipient"),
    # Mission alliances (R8.7-R8.9): the owner's, with the ally, secret until Battles (R8.8).
    ("GET", C + "/alliances"): Read("page", MEMBERS, _s("alliance"), variants=(V(), V("?event={event}"))),
    ("POST", C + "/alliances"): Action(PLAYERS, {"event_id": "{event}", "invite": "{other_player}"}),
    ("POST", C + "/alliances/{aid}/accept"): Action(NOBODY, why="an invitee: the owner is its initiator, the ally accepted"),
    ("POST", C + "/alliances/{aid}/decline"): Action(NOBODY, why="an invitee: the owner is its initiator, the ally accepted"),
    ("POST", C + "/alliances/{aid}/withdraw"): Action(OWNER, why="a member"),
    # --- a campaign: the JSON API -----------------------------------------------------------
    ("GET", API + C): Read("api", INVITEES, _s("gold"), why="players with gold for self and the GM (API.md)"),
    ("PATCH", API + C): Action(GM, {"name": "Renamed"}),
    ("POST", API + C + "/invitations"): Action(GM, {"nickname": "mx-outsider"}),
    ("GET", API + C + "/invitations"): Read("api", GM),
    ("POST", API + C + "/invitations/accept"): Action(frozenset({"invited"})),
    ("POST", API + C + "/invitations/decline"): Action(frozenset({"invited"})),
    ("POST", API + C + "/status"): Action(GM, {"status": "hideouts"}),
    ("POST", API + C + "/hideouts"): Action(PLAYERS, {"place_id": "{place_b}"}),
    ("GET", API + C + "/players"): Read("api", MEMBERS, _s("gold")),
    ("GET", API + C + "/map"): Read("map", MEMBERS, variants=(V(), V("?of={place_map}"))),
    ("PUT", API + C + "/maps/{target}/image"): Action(GM, files=True),
    ("GET", API + C + "/places"): Read("api", MEMBERS),
    ("POST", API + C + "/places"): Action(GM, {"name": "Matrix place", "income": 1, "x": 5, "y": 5}),
    ("POST", API + C + "/places/bulk"): Action(GM, {"places": [{"name": "Matrix bulk place", "income": 1}]}),
    ("PATCH", API + C + "/places/{pid}"): Action(GM, {"name": "Renamed"}),
    ("DELETE", API + C + "/places/{pid}"): Action(GM),
    ("GET", API + C + "/paths"): Read("api", MEMBERS, tolerate=frozenset({409}), why="409 where the paths module is off"),
    ("POST", API + C + "/paths"): Action(GM, {"from_id": "{place}", "to_id": "{place_b}"}),
    ("PATCH", API + C + "/paths/{path_id}"): Action(GM, {"one_way": True}),
    ("DELETE", API + C + "/paths/{path_id}"): Action(GM),
    ("GET", API + C + "/chronicle"): Read("chronicle", MEMBERS),
    ("GET", API + C + "/company"): Read(
        "api",
        PLAYERS,
        _s("gold", "settlement"),
        variants=(V(), OWNER_COMPANY, OTHER_COMPANY),
        why="the company with its models' injuries",
    ),
    ("PUT", API + C + "/company/faction"): Action(PLAYERS, {"faction": "undead"}),
    ("POST", API + C + "/company/models"): Action(PLAYERS, {"profile": "orcs.ax"}),
    ("POST", API + C + "/company/import"): Action(PLAYERS, files=True, why="R12.15: a roster file bought into the company"),
    ("DELETE", API + C + "/company/models/{mid}"): Action(OWNER),
    ("PATCH", API + C + "/company/models/{mid}"): Action(OWNER, {"given_name": "Matrix"}, why="issue 29: a model's own name"),
    ("POST", API + C + "/company/items"): Action(PLAYERS, {"item": "item.bandages"}),
    ("DELETE", API + C + "/company/items/{iid}"): Action(OWNER),
    ("PUT", API + C + "/company/items/{iid}"): Action(OWNER, {"model_id": "{model}"}),
    ("POST", API + C + "/company/confirm"): Action(PLAYERS),
    ("POST", API + C + "/rewards"): Action(GM, {"player_id": "{owner_player}", "item": "item.bandages"}),
    ("GET", API + C + "/ledger"): Read(
        "api",
        PLAYERS,
        _s("ledger", "gold", "transfer"),
        variants=(V(), OWNER_COMPANY, OTHER_COMPANY),
        check="ledger",
        why="a mission-alliance fee before Battles is its payer's alone (R8.8)",
    ),
    ("POST", API + C + "/ledger/adjustments"): Action(GM, {"player_id": "{owner_player}", "amount": 5, "reason": "Matrix"}),
    ("GET", API + C + "/events"): Read("api", MEMBERS),
    ("POST", API + C + "/events"): Action(GM, {"place_id": "{place}", "title": "Matrix event"}),
    ("PATCH", API + C + "/events/{eid}"): Action(GM, {"title": "Renamed"}),
    ("DELETE", API + C + "/events/{eid}"): Action(GM),
    ("GET", API + C + "/events/library"): Read("api", GM),
    ("POST", API + C + "/events/{eid}/reuse"): Action(GM),
    ("GET", API + C + "/warbands"): Read("api", MEMBERS, _s("order", "warband"), why="own warbands (the GM has none)"),
    ("POST", API + C + "/warbands"): Action(PLAYERS, {"name": "Matrix", "model_ids": ["{model}"]}),
    ("PATCH", API + C + "/warbands/{wid}"): Action(OWNER, {"name": "Renamed"}),
    ("DELETE", API + C + "/warbands/{wid}"): Action(OWNER),
    ("PUT", API + C + "/warbands/{wid}/order"): Action(OWNER, {"place_id": "{place_b}"}, params=(("wid", "warband_home"),)),
    ("DELETE", API + C + "/warbands/{wid}/order"): Action(GM),
    ("GET", API + C + "/orders"): Read("api", MEMBERS, check="orders", why="ids only: checked row by row"),
    ("GET", API + C + "/battles"): Read("api", MEMBERS),
    ("GET", API + C + "/battles/{bid}"): Read("api", MEMBERS),
    ("POST", API + C + "/battles/{bid}/result"): Action(PLAYERS, {"winner_player_ids": []}, why="participants"),
    ("POST", API + C + "/battles/{bid}/confirm"): Action(PLAYERS, why="participants"),
    ("POST", API + C + "/battles/{bid}/dispute"): Action(PLAYERS, {"reason": "Matrix"}, why="participants"),
    ("POST", API + C + "/battles/{bid}/resolve"): Action(GM, {"winner_player_ids": []}),
    ("GET", API + C + "/battles/{bid}/clock"): Read("api", MEMBERS),
    ("POST", API + C + "/battles/{bid}/clock"): Action(MEMBERS, {"action": "start"}, why="the battle's players and the GM"),
    ("GET", API + C + "/clock-settings"): Read("api", MEMBERS),
    ("PUT", API + C + "/clock-settings"): Action(GM, {"minutes_per_side": 30}),
    ("PUT", API + C + "/events/{eid}/clock-settings"): Action(GM, {"clock": None}),
    ("POST", API + C + "/phase"): Action(GM, {"phase": "twilight"}),
    ("POST", API + C + "/end-round"): Action(GM, {"round": 1}),
    ("GET", API + C + "/twilight"): Read("api", MEMBERS),
    ("POST", API + C + "/twilight/choices"): Action(GM, {"place_id": "{place}", "player_id": "{owner_player}"}),
    ("GET", API + C + "/battles/{bid}/settlements/{wid}"): Read(
        "api",
        OWNER_GM,
        _s("settlement", "ransom"),
        variants=(V(), V(params=(("wid", "other_warband"),), who=frozenset({"other", "gm"}))),
    ),
    ("PUT", API + C + "/battles/{bid}/settlements/{wid}"): Action(OWNER, {}),
    ("POST", API + C + "/battles/{bid}/settlements/{wid}/close"): Action(
        OTHER, params=(("wid", "other_warband"),), why="the other player's open settlement: only they close it"
    ),
    ("POST", API + C + "/battles/{bid}/settlements/{wid}/roll"): Action(OWNER, {"model_id": "{injured_model}"}),
    ("POST", API + C + "/battles/{bid}/settlements/{wid}/reopen"): Action(GM),
    ("GET", API + C + "/settlements"): Read("api", MEMBERS, check="settlements", why="ids only: checked row by row"),
    ("GET", API + C + "/ransoms"): Read("api", MEMBERS, _s("ransom")),
    ("POST", API + C + "/ransoms/{rid}/offer"): Action(OTHER, {"price": 5}, why="the captor"),
    ("POST", API + C + "/ransoms/{rid}/pay"): Action(OWNER, why="the prisoner's owner"),
    ("POST", API + C + "/ransoms/{rid}/refuse"): Action(OWNER, why="the prisoner's owner"),
    ("GET", API + C + "/guilds"): Read("api", MEMBERS, check="guilds", why="public; requests checked row by row"),
    ("POST", API + C + "/guilds"): Action(PLAYERS, {"name": "Matrix new guild"}),
    ("POST", API + C + "/guilds/{gid}/requests"): Action(PLAYERS),
    ("POST", API + C + "/guilds/{gid}/requests/{rid}/accept"): Action(OTHER, params=REQUEST, why="the founder decides"),
    ("POST", API + C + "/guilds/{gid}/requests/{rid}/reject"): Action(OTHER, params=REQUEST, why="the founder decides"),
    ("POST", API + C + "/guilds/{gid}/invitations"): Action(OTHER, {"player_id": "{owner_player}"}, why="the founder invites"),
    ("POST", API + C + "/guilds/{gid}/invitations/{iid}/accept"): Action(NOBODY, params=INVITATION, why="the invitee (the ally)"),
    ("POST", API + C + "/guilds/{gid}/invitations/{iid}/decline"): Action(
        NOBODY, params=INVITATION, why="the invitee (the ally)"
    ),
    ("POST", API + C + "/guilds/{gid}/upgrade"): Action(OTHER, why="the founder"),
    ("POST", API + C + "/guilds/{gid}/leave"): Action(NOBODY, why="a member who is not the founder: no role is one"),
    ("DELETE", API + C + "/guilds/{gid}"): Action(OTHER, why="the founder"),
    ("PUT", API + C + "/warbands/{wid}/position"): Action(
        GM, {"place_id": "{place_b}"}, why="the GM places a warband (movement, R9.8)"
    ),
    ("GET", API + C + "/transfers"): Read("api", PLAYERS, _s("transfer"), tolerate=frozenset({409})),  # module off in setup
    ("POST", API + C + "/transfers"): Action(PLAYERS, {"to_player_id": "{other_player}", "amount": 5, "note": "Matrix"}),
    ("GET", API + C + "/letters"): Read("api", MEMBERS, _s("letter"), variants=(V(), V("?box=in"), V("?box=out"))),
    ("POST", API + C + "/letters"): Action(MEMBERS, {"to_player_id": "{other_player}", "subject": "Matrix", "body": "Matrix"}),
    # The live stream (R11.4), walked as its replay of the whole campaign (test_matrix._stream_replay):
    # ids and public facts only; tests/api/test_live_api.py checks each secret against each role.
    ("GET", API + C + "/stream"): Read(
        "stream", MEMBERS, variants=(V("?after=0"),), why="every member follows the campaign; each hears only what it may see"
    ),
    ("GET", API + C + "/letters/{lid}"): Read(
        "api", OWNER, _s("letter"), variants=(V(), V(params=(("lid", "letter_gm"),), who=frozenset({"other", "gm"})))
    ),
    ("POST", API + C + "/letters/{lid}/read"): Action(GM, params=(("lid", "letter_gm"),), why="the recipient"),
    ("POST", API + C + "/letters/{lid}/unread"): Action(GM, params=(("lid", "letter_gm"),), why="the recipient"),
    ("POST", API + C + "/letters/{lid}/reply"): Action(
        frozenset({"other", "gm"}), {"body": "Matrix"}, params=(("lid", "letter_gm"),)
    ),
    ("GET", API + C + "/alliances"): Read("api", MEMBERS, _s("alliance"), check="alliances", why="ids only: checked row by row"),
    ("POST", API + C + "/alliances"): Action(PLAYERS, {"event_id": "{event}", "invite_player_ids": ["{other_player}"]}),
    ("POST", API + C + "/alliances/{aid}/accept"): Action(
        NOBODY, why="an invitee: the owner is its initiator, the ally accepted"
    ),
    ("POST", API + C + "/alliances/{aid}/decline"): Action(
        NOBODY, why="an invitee: the owner is its initiator, the ally accepted"
    ),
    ("POST", API + C + "/alliances/{aid}/withdraw"): Action(OWNER, why="a member"),
}

# Path parameters and the ids of the planted worlds they take (an entry may choose others).
# "=value" is the value itself.
PARAMS = {
    "cid": "cid",
    "pid": "place",
    "eid": "event",
    "wid": "warband",
    "bid": "battle",
    "mid": "model",
    "iid": "item",
    "rid": "ransom",
    "path_id": "path",
    "target": "=top",
    "token_id": "token_id",
    "token": "=forged-token-of-the-matrix",  # a one-tap confirm link's (matrix_table.py)
    "photo_id": "=1",
    "step": "=1",
    "key": "=orcs",
    "name": "media",
    "gid": "guild",
    "aid": "alliance",
    "lid": "letter",
}


@dataclass
class Walk:
    """What one walk over the matrix found (collected, then reported all at once)."""

    problems: list[str] = field(default_factory=list)
    seen: dict = field(default_factory=dict)  # (route, kind) -> True when a kind was shown

    def fail(self, line: str) -> None:
        self.problems.append(line)


# Issue 19's domains keep their entries in their own files (written side by side).
from tests.secrecy import (  # noqa: E402
    matrix_archive,
    matrix_exports,
    matrix_people,
    matrix_pwa,
    matrix_season,
    matrix_table,
    matrix_webhooks,
)

# Each also lists its page POSTs for tests/web/test_prg.py.
DOMAIN_MATRICES = (matrix_season, matrix_webhooks, matrix_exports, matrix_pwa, matrix_people, matrix_table, matrix_archive)
for _extra in DOMAIN_MATRICES:
    MATRIX.update(_extra.ENTRIES)
