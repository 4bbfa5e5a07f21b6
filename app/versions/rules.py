"""Which tables a change counter looks at, and who sees each (issue 17, issue 37; SPEC R11.2):
the data app/versions/service.py and app/versions/audience.py work from. Every table is in
one set on purpose (tests/unit/test_audience_tables_issue37.py)."""

from __future__ import annotations

# Tables whose rows no campaign page shows (logins, sessions, tokens, a user's imports and
# mail) or that are this bookkeeping itself.
IGNORED = {
    "user_account",
    "user_session",
    "api_token",
    "login_failure",
    "live_event",
    "live_audience",
    "campaign_version",
    "audience_version",
    "digest_subscription",
    "idempotency_key",
    "import_start",
    "digest_confirmation_mail",
}
# Rows without a campaign id, placed through their parent: table -> (column, parent table).
PARENTS = {
    "battle_warband": ("battle_id", "battle"),
    "battle_confirmation": ("battle_id", "battle"),
    "company_model": ("company_id", "company"),
    "company_item": ("company_id", "company"),
    "warband_member": ("warband_id", "warband"),
}
# For the audiences, besides the campaign counters' parents: a battle's photos.
ROW_PARENTS = {**PARENTS, "battle_photo": ("battle_id", "battle")}
# Whose rows a change of these tables moves (R11.2's matrix; tests/secrecy/world.py ORACLE):
# the players in the named columns, and the GMs where they may see it too.
OWNED = {
    "company": (("player_id",), True),
    "ransom": (("owner_player_id", "captor_player_id"), True),
    "transfer": (("from_player_id", "to_player_id"), False),
}
GMS_ONLY = {"audit_entry", "webhook", "webhook_delivery", "screen_link"}
# Tables with a rule of their own (`_place`, `_seen`).
RULED = {
    "letter",
    "settlement",
    "ledger_entry",
    "player",
    "warband_order",
    "warband",
    "warband_member",
    "company_model",
    "company_item",
    "guild_request",
    "calendar_link",
    "invitation",
    "mission_alliance",
    "mission_alliance_member",
}
# Tables whose rows every member may see (R11.2 names no secret in them): their changes move
# every member's seat. A table in none of these sets fails tests/unit/test_audience_tables_issue37.py,
# so that a new table's audience is decided, not defaulted.
EVERY_MEMBER = {
    "arrival",
    "battle",
    "battle_warband",
    "battle_confirmation",
    "battle_photo",
    "battle_clock",
    "battle_confirm_link",
    "campaign",
    "chronicle_entry",
    "event",
    "game_master",
    "guild",
    "guild_member",
    "guild_round_member",
    "hideout",
    "imported_seat",
    "path",
    "phase_deadline",
    "place",
    "place_round",
    "player_away",
    "twilight_choice",
}
# Who counts as an alliance's member or invitee (app/visibility/ `_ALLIANCES_OF_PLAYER`).
IN_ALLIANCE = ("invited", "member")
# Rows the database deletes with their parent (ON DELETE CASCADE), which no flush shows: read
# before the parent's delete, so that those who saw them see them go (a warband disbanded
# leaves its past battles, arrivals, orders and settlements; a model sold, the ransom asked
# for it).
CASCADES = {
    "warband": (
        ("arrival", "warband_id"),
        ("battle_warband", "warband_id"),
        ("warband_order", "warband_id"),
        ("settlement", "warband_id"),
    ),
    "company_model": (("ransom", "model_id"),),
}
ALLIANCES = {"mission_alliance": "id", "mission_alliance_member": "alliance_id"}
# What everyone sees of a warband (where it stands, on the map). The rest is its owner's
# (tests/secrecy/world.py ORACLE) until it is public: with the movement module on (the map's
# place sheets name the warbands standing there) or once it has sent an order or arrived
# somewhere (a past round's orders and arrivals name it).
WARBAND_PUBLIC = {"location_place_id", "player_id", "campaign_id"}
# What nobody but its owner ever sees of a warband as it stands (battles keep roster copies).
WARBAND_OWN = {
    "mercenary_key",
    "mercenary_name",
    "mercenary_points",
    "mercenary_types",
    "mercenary_alignment",
    "mercenary_unique",
}
# The columns the rules below read, kept from each flushed row (a deleted row's are gone later).
READ = (
    "id",
    "campaign_id",
    "player_id",
    "round",
    "kind",
    "user_id",
    "alliance_id",
    "owner_player_id",
    "captor_player_id",
    "from_player_id",
    "to_player_id",
    "initiator_player_id",
    "status",
    "guild_id",
    *{column for column, _parent in ROW_PARENTS.values()},
)
