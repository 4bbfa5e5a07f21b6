"""The OpenAPI document as generated clients read it (issue 30).

FastAPI names an operation after its function and path (`create_token_api_v1_auth_tokens_post`)
and several domains call their functions `create`, `send` or `confirm`; a client generated from
that is unreadable. Every operation gets its id from the table below, written by hand so the
names read as the domain does; a test fails when a route has no entry, so a new route cannot
slip in with a generated name. Uploads are typed as binary strings, which generators turn into
file parameters (FastAPI writes `contentMediaType`, which they read as text)."""

from __future__ import annotations

import re
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from app.idempotency.middleware import never_kept

OPERATION_IDS: dict[tuple[str, str], str] = {
    ("POST", "/users"): "register",
    ("POST", "/auth/tokens"): "create_token",
    ("DELETE", "/auth/tokens/current"): "revoke_current_token",
    ("GET", "/me"): "get_me",
    ("PATCH", "/me"): "update_me",
    ("GET", "/campaigns/{cid}/export"): "export_campaign",
    ("POST", "/campaigns/import"): "import_campaign",
    ("POST", "/campaigns/{cid}/copy"): "copy_campaign",
    ("POST", "/campaigns/{cid}/map-template"): "fill_map_from_template",
    ("POST", "/campaigns"): "create_campaign",
    ("GET", "/campaigns/{cid}"): "get_campaign",
    ("PATCH", "/campaigns/{cid}"): "update_campaign",
    ("POST", "/campaigns/{cid}/invitations"): "invite_player",
    ("GET", "/campaigns/{cid}/invitations"): "list_invitations",
    ("POST", "/campaigns/{cid}/invitations/accept"): "accept_campaign_invitation",
    ("POST", "/campaigns/{cid}/invitations/decline"): "decline_campaign_invitation",
    ("GET", "/campaigns/{cid}/game-masters"): "list_game_masters",
    ("POST", "/campaigns/{cid}/game-masters"): "add_game_master",
    ("DELETE", "/campaigns/{cid}/game-masters/{user_id}"): "remove_game_master",
    ("PUT", "/campaigns/{cid}/players/{pid}/away"): "mark_player_away",
    ("DELETE", "/campaigns/{cid}/players/{pid}/away"): "clear_player_away",
    ("POST", "/campaigns/{cid}/players/{pid}/handover"): "hand_seat_over",
    ("GET", "/campaigns/{cid}/audit"): "list_audit_entries",
    ("POST", "/campaigns/{cid}/audit/{entry_id}/undo"): "undo_audit_entry",
    ("POST", "/campaigns/{cid}/status"): "change_campaign_status",
    ("POST", "/campaigns/{cid}/hideouts"): "claim_hideout",
    ("GET", "/campaigns/{cid}/players"): "list_players",
    ("GET", "/campaigns/{cid}/map"): "get_map",
    ("PUT", "/campaigns/{cid}/maps/{target}/image"): "put_map_image",
    ("GET", "/campaigns/{cid}/places"): "list_places",
    ("POST", "/campaigns/{cid}/places"): "create_place",
    ("POST", "/campaigns/{cid}/places/bulk"): "create_places_in_bulk",
    ("PATCH", "/campaigns/{cid}/places/{pid}"): "update_place",
    ("DELETE", "/campaigns/{cid}/places/{pid}"): "delete_place",
    ("GET", "/campaigns/{cid}/paths"): "list_paths",
    ("POST", "/campaigns/{cid}/paths"): "create_path",
    ("PATCH", "/campaigns/{cid}/paths/{path_id}"): "update_path",
    ("DELETE", "/campaigns/{cid}/paths/{path_id}"): "delete_path",
    ("GET", "/campaigns/{cid}/chronicle"): "list_chronicle",
    ("GET", "/catalog/factions"): "list_factions",
    ("GET", "/catalog/factions/{key}"): "get_faction",
    ("GET", "/catalog/items"): "list_items",
    ("GET", "/catalog/mercenaries"): "list_mercenaries",
    ("GET", "/catalog/scenarios"): "list_scenarios",
    ("GET", "/campaigns/{cid}/company"): "get_company",
    ("PUT", "/campaigns/{cid}/company/faction"): "set_faction",
    ("POST", "/campaigns/{cid}/company/models"): "buy_model",
    ("POST", "/campaigns/{cid}/company/import"): "import_roster",
    ("DELETE", "/campaigns/{cid}/company/models/{mid}"): "sell_model",
    ("PATCH", "/campaigns/{cid}/company/models/{mid}"): "name_model",
    ("POST", "/campaigns/{cid}/company/items"): "buy_item",
    ("DELETE", "/campaigns/{cid}/company/items/{iid}"): "sell_item",
    ("PUT", "/campaigns/{cid}/company/items/{iid}"): "assign_item",
    ("POST", "/campaigns/{cid}/company/confirm"): "confirm_company",
    ("POST", "/campaigns/{cid}/rewards"): "give_reward",
    ("GET", "/campaigns/{cid}/ledger"): "list_ledger",
    ("POST", "/campaigns/{cid}/ledger/adjustments"): "adjust_gold",
    ("GET", "/campaigns/{cid}/transfers"): "list_transfers",
    ("POST", "/campaigns/{cid}/transfers"): "send_transfer",
    ("GET", "/campaigns/{cid}/events"): "list_events",
    ("POST", "/campaigns/{cid}/events"): "create_event",
    ("PATCH", "/campaigns/{cid}/events/{eid}"): "update_event",
    ("DELETE", "/campaigns/{cid}/events/{eid}"): "end_event",
    ("GET", "/campaigns/{cid}/events/library"): "list_event_library",
    ("POST", "/campaigns/{cid}/events/{eid}/reuse"): "reuse_event",
    ("GET", "/campaigns/{cid}/warbands"): "list_warbands",
    ("POST", "/campaigns/{cid}/warbands"): "create_warband",
    ("PATCH", "/campaigns/{cid}/warbands/{wid}"): "update_warband",
    ("DELETE", "/campaigns/{cid}/warbands/{wid}"): "disband_warband",
    ("PUT", "/campaigns/{cid}/warbands/{wid}/order"): "send_order",
    ("DELETE", "/campaigns/{cid}/warbands/{wid}/order"): "cancel_order",
    ("GET", "/campaigns/{cid}/orders"): "list_orders",
    ("PUT", "/campaigns/{cid}/warbands/{wid}/position"): "place_warband",
    ("GET", "/campaigns/{cid}/battles"): "list_battles",
    ("GET", "/campaigns/{cid}/battles/{bid}"): "get_battle",
    ("POST", "/campaigns/{cid}/battles/{bid}/result"): "report_result",
    ("POST", "/campaigns/{cid}/battles/{bid}/confirm"): "confirm_result",
    ("POST", "/campaigns/{cid}/battles/{bid}/dispute"): "dispute_result",
    ("POST", "/campaigns/{cid}/battles/{bid}/resolve"): "resolve_result",
    ("POST", "/campaigns/{cid}/battles/{bid}/confirm-link"): "make_confirm_link",
    ("GET", "/campaigns/{cid}/battles/{bid}/photos"): "list_photos",
    ("POST", "/campaigns/{cid}/battles/{bid}/photos"): "add_photo",
    ("GET", "/campaigns/{cid}/battles/{bid}/photos/{photo_id}"): "get_photo",
    ("DELETE", "/campaigns/{cid}/battles/{bid}/photos/{photo_id}"): "delete_photo",
    ("POST", "/campaigns/{cid}/phase"): "change_phase",
    ("POST", "/campaigns/{cid}/end-round"): "end_round",
    ("GET", "/campaigns/{cid}/twilight"): "get_twilight",
    ("POST", "/campaigns/{cid}/twilight/choices"): "choose_twilight",
    ("GET", "/campaigns/{cid}/battles/{bid}/settlements/{wid}"): "get_settlement",
    ("PUT", "/campaigns/{cid}/battles/{bid}/settlements/{wid}"): "put_settlement",
    ("POST", "/campaigns/{cid}/battles/{bid}/settlements/{wid}/close"): "close_settlement",
    ("POST", "/campaigns/{cid}/battles/{bid}/settlements/{wid}/roll"): "roll_settlement",
    ("POST", "/campaigns/{cid}/battles/{bid}/settlements/{wid}/reopen"): "reopen_settlement",
    ("GET", "/campaigns/{cid}/settlements"): "list_settlements",
    ("GET", "/campaigns/{cid}/ransoms"): "list_ransoms",
    ("POST", "/campaigns/{cid}/ransoms/{rid}/offer"): "offer_ransom",
    ("POST", "/campaigns/{cid}/ransoms/{rid}/pay"): "pay_ransom",
    ("POST", "/campaigns/{cid}/ransoms/{rid}/refuse"): "refuse_ransom",
    ("GET", "/campaigns/{cid}/guilds"): "list_guilds",
    ("POST", "/campaigns/{cid}/guilds"): "found_guild",
    ("POST", "/campaigns/{cid}/guilds/{gid}/requests"): "ask_to_join_guild",
    ("POST", "/campaigns/{cid}/guilds/{gid}/requests/{rid}/accept"): "accept_guild_request",
    ("POST", "/campaigns/{cid}/guilds/{gid}/requests/{rid}/reject"): "reject_guild_request",
    ("POST", "/campaigns/{cid}/guilds/{gid}/invitations"): "invite_to_guild",
    ("POST", "/campaigns/{cid}/guilds/{gid}/invitations/{iid}/accept"): "accept_guild_invitation",
    ("POST", "/campaigns/{cid}/guilds/{gid}/invitations/{iid}/decline"): "decline_guild_invitation",
    ("POST", "/campaigns/{cid}/guilds/{gid}/upgrade"): "upgrade_guild",
    ("POST", "/campaigns/{cid}/guilds/{gid}/leave"): "leave_guild",
    ("DELETE", "/campaigns/{cid}/guilds/{gid}"): "dissolve_guild",
    ("GET", "/campaigns/{cid}/alliances"): "list_alliances",
    ("POST", "/campaigns/{cid}/alliances"): "propose_alliance",
    ("POST", "/campaigns/{cid}/alliances/{aid}/accept"): "accept_alliance",
    ("POST", "/campaigns/{cid}/alliances/{aid}/decline"): "decline_alliance",
    ("POST", "/campaigns/{cid}/alliances/{aid}/withdraw"): "withdraw_from_alliance",
    ("GET", "/campaigns/{cid}/letters"): "list_letters",
    ("POST", "/campaigns/{cid}/letters"): "send_letter",
    ("GET", "/campaigns/{cid}/letters/{lid}"): "get_letter",
    ("POST", "/campaigns/{cid}/letters/{lid}/read"): "mark_letter_read",
    ("POST", "/campaigns/{cid}/letters/{lid}/unread"): "mark_letter_unread",
    ("POST", "/campaigns/{cid}/letters/{lid}/reply"): "reply_to_letter",
    ("GET", "/campaigns/{cid}/stream"): "stream_campaign",
    ("GET", "/campaigns/{cid}/clock-settings"): "get_clock_settings",
    ("PUT", "/campaigns/{cid}/clock-settings"): "put_clock_settings",
    ("PUT", "/campaigns/{cid}/events/{eid}/clock-settings"): "put_event_clock_settings",
    ("GET", "/campaigns/{cid}/battles/{bid}/clock"): "get_clock",
    ("POST", "/campaigns/{cid}/battles/{bid}/clock"): "tap_clock",
    ("GET", "/campaigns/{cid}/deadline"): "get_deadline",
    ("PUT", "/campaigns/{cid}/deadline"): "put_deadline",
    ("DELETE", "/campaigns/{cid}/deadline"): "delete_deadline",
    ("GET", "/me/digest"): "get_digest",
    ("PUT", "/me/digest"): "put_digest",
    ("POST", "/me/digest/resend"): "resend_digest_link",
    ("GET", "/campaigns/{cid}/webhooks"): "list_webhooks",
    ("POST", "/campaigns/{cid}/webhooks"): "add_webhook",
    ("DELETE", "/campaigns/{cid}/webhooks/{hid}"): "remove_webhook",
    ("GET", "/campaigns/{cid}/standings"): "get_standings",
    ("POST", "/campaigns/{cid}/screen-links"): "create_screen_link",
    ("DELETE", "/campaigns/{cid}/screen-links/{lid}"): "revoke_screen_link",
    ("POST", "/campaigns/{cid}/calendar-link"): "create_calendar_link",
}


def operation_id(method: str, path: str, prefix: str) -> str | None:
    return OPERATION_IDS.get((method.upper(), path.removeprefix(prefix)))


def _binary_uploads(node: Any) -> None:
    """Generators read `format: binary` as a file; FastAPI's `contentMediaType` reads as text."""
    if isinstance(node, dict):
        if node.get("type") == "string" and node.get("contentMediaType") == "application/octet-stream":
            del node["contentMediaType"]
            node["format"] = "binary"
        for value in node.values():
            _binary_uploads(value)
    elif isinstance(node, list):
        for value in node:
            _binary_uploads(value)


# SPEC R11.6, app/idempotency: every write may carry one.
IDEMPOTENCY_KEY = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "description": "Up to 255 characters. The same key with the same request answers the first answer again without "
    "acting; with another request, 422 idempotency_key_reused. Kept 24 hours, per user.",
    "schema": {"type": "string", "maxLength": 255},
}
# ... except where the answer is a credential (a new account's login, a token, a confirm link):
# such an answer is never kept (app/idempotency/middleware.py), so the document must not promise
# a replay there.
IDEMPOTENCY_KEY_NOT_KEPT = {
    **IDEMPOTENCY_KEY,
    "description": "Not kept on this operation: its answer carries a credential, and credentials are never kept to "
    "be answered again, so a retry with the same key acts again (a second token, a second link). A key over 255 "
    "characters is still refused (422 idempotency_key_invalid).",
}
WRITES = {"post", "put", "patch", "delete"}


def _idempotency_key(path: str) -> dict[str, Any]:
    return IDEMPOTENCY_KEY_NOT_KEPT if never_kept(re.sub(r"{\w+}", "1", path)) else IDEMPOTENCY_KEY


def build(app: FastAPI, prefix: str) -> dict[str, Any]:
    document = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
    for path, operations in document.get("paths", {}).items():
        for method, operation in operations.items():
            named = operation_id(method, path, prefix)
            if named:
                operation["operationId"] = named
            if method in WRITES:
                operation.setdefault("parameters", []).append(_idempotency_key(path))
    _binary_uploads(document.get("components", {}))
    return document


def install(app: FastAPI, prefix: str) -> None:
    """The document is built once per app, as FastAPI does."""

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            app.openapi_schema = build(app, prefix)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
