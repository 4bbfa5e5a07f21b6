"""The refusals of the server and the campaign's frame: code -> (HTTP status, English message
with %(name)s parameters). Add a code here when it is about accounts, requests, a campaign's
set-up, status and phases, places, the season, export and import or webhooks; a code about the
game's rules (gold, companies, warbands, battles, guilds, Twilight, settlement...) goes to
app/core/rule_codes.py. app/core/errors.py merges the two into ERRORS."""

from __future__ import annotations


def N_(message: str) -> str:
    """Marks a message for extraction; it is translated where it is shown."""
    return message


# code -> (HTTP status, English message with %(name)s parameters)
SERVER_ERRORS: dict[str, tuple[int, str]] = {
    # generic
    "not_logged_in": (401, N_("Please log in first.")),
    "forbidden": (403, N_("You are not allowed to do that.")),
    "gm_only": (403, N_("Only the game master can do that.")),
    "not_found": (404, N_("Not found, or not visible to you.")),
    "csrf_failed": (403, N_("The form expired or came from another site. Reload the page and try again.")),
    "validation_error": (422, N_("Some fields are not valid.")),
    "field_required": (422, N_("This field is required.")),
    "field_invalid": (422, N_("This value is not valid.")),
    "field_too_short": (422, N_("This value is too short (at least %(min)s).")),
    "field_too_long": (422, N_("This value is too long (at most %(max)s).")),
    "field_too_small": (422, N_("This number must be at least %(min)s.")),
    "field_too_large": (422, N_("This number must be at most %(max)s.")),
    "field_not_integer": (422, N_("Enter a whole number.")),
    "field_not_number": (422, N_("Enter a number.")),
    "field_not_boolean": (422, N_("Enter true or false.")),
    "field_choice": (422, N_("Choose one of: %(choices)s.")),
    "text_nul": (422, N_("Text may not contain NUL characters.")),
    "method_not_allowed": (405, N_("This method is not allowed here.")),
    "internal_error": (500, N_("Something went wrong on the server. Please try again.")),
    "database_unavailable": (503, N_("The database cannot be reached just now. Please try again in a moment.")),
    "server_stopping": (
        503,
        N_("The server is restarting and could not finish this request. Check whether it was done before you try again."),
    ),
    # one tap acts once (R11.6)
    "idempotency_key_reused": (
        422,
        N_("This Idempotency-Key was already used for another request; send a new key with a new request."),
    ),
    "idempotency_key_busy": (
        409,
        N_("The first request with this Idempotency-Key is still being carried out; try again in a moment."),
    ),
    "idempotency_key_invalid": (422, N_("An Idempotency-Key has 1 to %(max)s characters.")),
    # accounts
    "nickname_invalid": (422, N_("A nickname has 3 to 32 letters, digits, dots, dashes or underscores.")),
    "nickname_taken": (409, N_("The nickname %(nickname)s is already taken.")),
    "password_too_short": (422, N_("The password must have at least %(min)s characters.")),
    "password_too_long": (422, N_("The password may have at most %(max)s characters.")),
    "login_failed": (401, N_("Wrong nickname or password.")),
    "login_throttled": (429, N_("Too many failed logins. Try again in %(wait)s.")),
    "live_too_many_streams": (429, N_("Too many open pages follow this campaign live; close some and try again.")),
    "wrong_password": (422, N_("The current password is wrong.")),
    "locale_unknown": (422, N_("Unknown language.")),
    "time_zone_unknown": (422, N_("Unknown time zone: give an IANA name such as Europe/Warsaw.")),
    "token_not_found": (404, N_("No such API token.")),
    # campaigns
    "campaign_read_only": (409, N_("The campaign is finished and can no longer be changed.")),
    "wrong_status": (409, N_("The campaign is in %(status)s; this needs %(needed)s.")),
    "status_transition": (409, N_("A campaign cannot go from %(status)s to %(target)s.")),
    "roster_closed": (409, N_("The roster is closed: invitations are only possible during setup.")),
    "user_unknown": (422, N_("There is no user with the nickname %(nickname)s.")),
    "gm_cannot_play": (422, N_("The game master runs the campaign and cannot join it as a player.")),
    "already_player": (409, N_("%(nickname)s already plays in this campaign.")),
    "already_invited": (409, N_("%(nickname)s is already invited.")),
    "no_invitation": (404, N_("You have no pending invitation to this campaign.")),
    "campaign_full": (409, N_("The campaign is full: %(max)s players at most.")),
    "too_few_players": (409, N_("At least %(min)s players are needed; the campaign has %(count)s.")),
    "too_few_hideout_places": (409, N_("Free hideout places (⚑): %(places)s, players: %(players)s; add more ⚑ places first.")),
    "hideouts_missing": (409, N_("Not every player holds a hideout yet: %(missing)s still choosing.")),
    "not_a_player": (403, N_("Only players of this campaign can do that.")),
    "hideout_not_flagged": (422, N_("%(place)s has no hideout flag (⚑).")),
    "hideout_taken": (409, N_("%(place)s was already claimed by another player.")),
    "hideout_already_chosen": (409, N_("You already hold a hideout.")),
    # people come and go (issue 36, R12.8-R12.12)
    "already_gm": (409, N_("%(nickname)s is already a game master of this campaign.")),
    "player_cannot_be_gm": (409, N_("%(nickname)s plays in this campaign (or is invited to); a game master cannot be a player.")),
    "owner_gm_stays": (409, N_("The game master who created the campaign cannot be removed.")),
    "away_rounds": (422, N_("Away rounds start at round %(first)s or later, and the last is not before the first.")),
    "away_orders_sent": (409, N_("Orders are already sent this round: cancel them first, then mark the round away.")),
    "player_away": (409, N_("You are marked away this round: your warbands stay home and defend.")),
    "late_join_phase": (409, N_("A new player joins a running campaign only during Preparation.")),
    "handover_user_busy": (409, N_("%(nickname)s is already in this campaign.")),
    "undo_done": (409, N_("This change was already undone.")),
    "undo_unsafe": (409, N_("This change cannot be undone: %(reason)s.")),
    "undo_later_change": (409, N_("A later change of the same thing depends on this one: undo that first.")),
    "max_players_below_roster": (
        422,
        N_("The campaign already has %(count)s players and invitations; the limit cannot be lower."),
    ),
    "settings_locked": (409, N_("%(field)s can no longer be changed once the campaign has started.")),
    "starting_gold_locked": (409, N_("The starting gold cannot change once a player has joined.")),
    "battle_size_limit_invalid": (422, N_("The battle size limit is a number of at least 3, or empty for unlimited.")),
    "guild_term_invalid": (422, N_("Choose one of: %(choices)s.")),
    "wizard_step_invalid": (404, N_("The wizard has steps 1 to 6.")),
    "image_too_large": (422, N_("The image is larger than %(max_mb)s MB.")),
    "image_invalid": (422, N_("That file is not a PNG, JPEG or WebP image.")),
    "image_too_many_pixels": (422, N_("The image is %(width)s × %(height)s pixels; at most %(max_mp)s megapixels are accepted.")),
    "body_too_large": (413, N_("The request is larger than %(max_mb)s MB.")),
    # the season: deadlines and the daily digest (issue 19, app/season)
    "deadline_past": (422, N_("The deadline must be in the future.")),
    "deadline_too_far": (422, N_("The deadline may be at most %(days)s days ahead.")),
    "email_invalid": (422, N_("Enter an e-mail address like name@example.org.")),
    "digest_needs_email": (422, N_("Enter your e-mail address to receive the daily digest.")),
    "digest_confirm_too_many": (429, N_("%(max)s confirmation e-mails an hour at most. Try again later.")),
    "digest_link_invalid": (404, N_("This link is not valid any more. Ask for a new one on your Account page.")),
    "digest_nothing_to_confirm": (409, N_("There is no address waiting to be confirmed.")),
    "digest_no_mail_server": (409, N_("This server sends no e-mail yet: its administrator has to set up SMTP first.")),
    # phases
    "not_running": (409, N_("This is possible only while the campaign is running.")),
    "phase_unknown": (422, N_("Unknown phase %(phase)s.")),
    "phase_same": (409, N_("The round is already in %(phase)s.")),
    "phase_backward": (409, N_("There is no way back from %(current)s to %(target)s.")),
    "phase_skip": (409, N_("From %(current)s the next phase is %(next)s, not %(target)s.")),
    "end_round_phase": (409, N_("A round ends only in Twilight; it is now %(phase)s.")),
    "end_round_mismatch": (409, N_("Round %(requested)s cannot be ended: the current round is %(round)s.")),
    # places
    "place_owned": (409, N_("%(place)s belongs to a player or holds a hideout, so it cannot be removed.")),
    "place_has_event": (409, N_("%(place)s has the active event %(title)s; end the event before removing the place.")),
    "place_has_orders": (409, N_("Warbands are sent to %(place)s this round; undo those orders before removing the place.")),
    "place_has_battles": (409, N_("Battles were fought at %(place)s; it stays in the campaign's history and cannot be removed.")),
    "place_parent_invalid": (422, N_("The parent place does not exist in this campaign.")),
    "map_too_deep": (422, N_("Maps go three levels deep at most (land, city, district).")),
    "place_cycle": (422, N_("A place cannot lie inside itself.")),
    "module_disabled": (409, N_("The %(module)s module is off in this campaign.")),
    "path_same_place": (422, N_("A path joins two different places.")),
    "path_cross_map": (
        422,
        N_("A path joins two places on the same map; use an entry point to join a place's map to its parent."),
    ),
    "path_exists": (409, N_("These two places are already joined by a path.")),
    "entry_needs_parent": (422, N_("Only a place on a place's own map can be an entry from the parent place.")),
    "map_has_places": (409, N_("%(place)s has places on its map; remove them before removing the map.")),
    # places in bulk (R12.14): the refusal lists each place's problem in its details
    "places_count": (422, N_("Add from 1 to %(most)s places at once.")),
    "places_refused": (422, N_("Nothing was added: some places in the list cannot be added.")),
    "place_name_repeated": (422, N_("%(name)s is in the list more than once.")),
    "place_name_taken": (409, N_("A place named %(name)s is already on this map.")),
    "place_line_part": (422, N_("%(part)s is neither an income nor a hideout mark (⚑, ! or x).")),
    # ready maps (R12.13)
    "ready_map_unknown": (422, N_("There is no such ready map; choose one of: %(choices)s.")),
    "ready_map_not_draft": (409, N_("A ready map fills the map of a campaign still in setup.")),
    "ready_map_not_empty": (409, N_("The map already has places: a ready map fills an empty map only.")),
    # export and import (issue 19)
    "import_no_file": (422, N_("Choose a campaign export file (.json) to import.")),
    "import_not_json": (422, N_("The file is not a JSON document, so it is not a campaign export.")),
    "import_not_export": (422, N_("This is not a Hideout campaign export: its format must be %(format)s.")),
    "import_version": (422, N_("This export has version %(version)s; this server reads version %(supported)s.")),
    "import_part_invalid": (422, N_("The export's %(part)s are not a list of rows with distinct numbers.")),
    "import_row_invalid": (422, N_("Row %(row)s of the export's %(part)s has an invalid %(field)s.")),
    "import_reference": (
        422,
        N_("Row %(row)s of the export's %(part)s refers in %(field)s to number %(number)s, which the export does not have."),
    ),
    "import_nickname": (422, N_("Player %(row)s of the export has no valid nickname, or the same one as another player.")),
    "import_gold": (422, N_("The gold of %(nickname)s (%(gold)s) is not the sum of their ledger (%(total)s).")),
    "import_gold_negative": (422, N_("The gold of %(nickname)s is below zero (%(gold)s).")),
    "import_image": (422, N_("A map image in the export is not valid base64 image data.")),
    "import_contradiction": (
        422,
        N_("The export contradicts itself (a duplicate or an impossible value); nothing was imported."),
    ),
    # issue 28: a hostile export
    "import_unknown_kind": (422, N_("Row %(row)s of the export's %(part)s has the unknown kind %(kind)s.")),
    "import_rule": (422, N_("Row %(row)s of the export's %(part)s breaks a rule: %(reason)s")),
    "import_throttled": (429, N_("Too many imports. Try again in %(wait)s.")),
    "json_too_deep": (422, N_("The JSON is nested more than %(max)s levels deep.")),
    # webhooks (issue 19)
    "webhook_url_invalid": (422, N_("A webhook address starts with http:// or https:// and names a host.")),
    "webhook_url_private": (422, N_("%(host)s is a private, local or reserved address; webhooks only go to public addresses.")),
    "webhook_host_unknown": (422, N_("The host %(host)s could not be found.")),
    "webhook_too_many": (409, N_("A campaign has %(max)s webhooks at most; remove one first.")),
}
