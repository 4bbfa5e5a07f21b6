"""DomainError: a refusal with a stable code; the message is translated from the code."""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel


def N_(message: str) -> str:
    """Marks a message for extraction; it is translated where it is shown."""
    return message


# code -> (HTTP status, English message with %(name)s parameters)
ERRORS: dict[str, tuple[int, str]] = {
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
    "server_stopping": (503, N_("The server is restarting and could not finish this request. "
                                "Check whether it was done before you try again.")),
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
    "too_few_hideout_places": (409, N_("There are %(places)s free hideout places (⚑) for %(players)s players; add more ⚑ places first.")),
    "hideouts_missing": (409, N_("Not every player holds a hideout yet: %(missing)s still choosing.")),
    "not_a_player": (403, N_("Only players of this campaign can do that.")),
    "hideout_not_flagged": (422, N_("%(place)s has no hideout flag (⚑).")),
    "hideout_taken": (409, N_("%(place)s was already claimed by another player.")),
    "hideout_already_chosen": (409, N_("You already hold a hideout.")),
    "max_players_below_roster": (422, N_("The campaign already has %(count)s players and invitations; the limit cannot be lower.")),
    "settings_locked": (409, N_("%(field)s is fixed once the campaign has started.")),
    "starting_gold_locked": (409, N_("The starting gold cannot change once a player has joined.")),
    "battle_size_limit_invalid": (422, N_("The battle size limit is a number of at least 3, or empty for unlimited.")),
    "guild_term_invalid": (422, N_("Choose one of: %(choices)s.")),
    "wizard_step_invalid": (404, N_("The wizard has steps 1 to 6.")),
    "image_too_large": (422, N_("The image is larger than %(max_mb)s MB.")),
    "image_invalid": (422, N_("That file is not a PNG, JPEG or WebP image.")),
    "image_too_many_pixels": (422, N_("The image is %(width)s × %(height)s pixels; at most %(max_mp)s megapixels are accepted.")),
    "body_too_large": (413, N_("The request is larger than %(max_mb)s MB.")),
    # gold
    "not_enough_gold": (409, N_("Not enough gold: %(needed)s needed, you have %(have)s.")),
    "reason_required": (422, N_("Give a reason; the player will see it in their ledger.")),
    "amount_zero": (422, N_("The amount cannot be zero.")),
    "transfer_amount": (422, N_("Send at least 1 gold.")),
    "transfer_to_self": (422, N_("You cannot send gold to yourself.")),
    "player_id_required": (404, N_("Say whose ledger or company to show (player_id).")),
    # company and shop
    "shop_closed": (409, N_("The shop is closed now; it opens before round 1 and in Preparation and Orders.")),
    "faction_required": (409, N_("Choose your company's faction first.")),
    "faction_unknown": (422, N_("There is no faction %(faction)s in the catalog.")),
    "faction_locked": (409, N_("The company is confirmed: its faction cannot change.")),
    "company_confirmed_already": (409, N_("The company is already confirmed.")),
    "company_needs_leader": (409, N_("A company needs a leader (a Command model) to be confirmed.")),
    "profile_unknown": (422, N_("There is no model %(profile)s in the catalog.")),
    "profile_other_faction": (422, N_("%(name)s belongs to another faction.")),
    "item_unknown": (422, N_("There is no item %(item)s in the catalog.")),
    "item_unique_reward_only": (409, N_("Unique items are not for sale; they come only as rewards from the game master.")),
    "unique_profile_held": (409, N_("%(name)s is a unique character and is already in the company.")),
    "item_grunt_common_only": (409, N_("%(model)s is a Grunt and may carry only Common items.")),
    "item_grunt_one_only": (409, N_("%(model)s is a Grunt and already carries an item.")),
    "item_limit": (409, N_("%(model)s already carries %(max)s items.")),
    "item_slot_taken": (409, N_("%(model)s already carries a %(slot)s item.")),
    "reward_needs_one": (422, N_("Grant either an item or a model.")),
    # events
    "event_scenario_or_mission": (422, N_("Choose a scenario or write another mission, not both.")),
    "scenario_unknown": (422, N_("There is no scenario %(scenario)s in the catalog.")),
    "other_mission_text": (422, N_("Write the other mission's text.")),
    "event_ended": (409, N_("The event has ended.")),
    # warbands and orders
    "warband_invalid": (422, N_("The warband breaks the rules; every problem is listed.")),
    "warband_points_over": (422, N_("%(points)s points but the limit is %(limit)s.")),
    "warband_no_command": (422, N_("A warband needs a Command model.")),
    "warband_no_fighter": (422, N_("A warband needs a Grunt or Warrior model.")),
    "warband_command_limit": (422, N_("%(count)s Command models but only %(max)s allowed with %(gw)s Grunt/Warrior models.")),
    "warband_support_limit": (422, N_("%(count)s Support models but only %(max)s allowed with %(gw)s Grunt/Warrior models.")),
    "warband_spellcaster_limit": (422, N_("%(count)s Spellcaster models but only %(max)s allowed with %(gw)s Grunt/Warrior models.")),
    "warband_large_limit": (422, N_("%(count)s Large models but only %(max)s allowed in %(limit)s points.")),
    "warband_copies_limit": (422, N_("%(count)s × %(name)s but only %(max)s copies allowed in %(limit)s points.")),
    "warband_unique_twice": (422, N_("%(name)s is unique but appears %(count)s times.")),
    "warband_mercenary_alignment": (422, N_("%(name)s (%(alignment)s) will not join a %(faction)s warband.")),
    "warband_model_unknown": (422, N_("Model %(model_id)s is not in your company.")),
    "warband_model_taken": (409, N_("%(model)s is already in the warband %(warband)s.")),
    "mercenary_unknown": (422, N_("There is no mercenary %(mercenary)s in the catalog.")),
    "warband_frozen": (409, N_("%(warband)s has been sent this round and cannot change until the round ends.")),
    "faction_warband_sent": (409, N_("%(warband)s is sent this round; the faction cannot change until the round ends.")),
    "warband_build_closed": (409, N_("Warbands are built, changed and disbanded in Preparation and Orders.")),
    "model_in_sent_warband": (409, N_("%(model)s is in a warband sent this round.")),
    "orders_closed": (409, N_("Warbands are sent only in the Orders phase.")),
    "order_exists": (409, N_("%(warband)s has already been sent this round; ask the game master to undo that order.")),
    "order_destination": (422, N_("Send the warband either to an event or to a place.")),
    "order_event_inactive": (409, N_("The event %(title)s is not active this round.")),
    "order_blockade": (409, N_("%(title)s is a blockade: no warband may go there.")),
    "order_points_limit": (409, N_("%(title)s takes warbands of %(limit)s points at most; %(warband)s has %(points)s.")),
    "order_event_taken": (409, N_("You already sent a warband to %(title)s.")),
    "order_place_has_events": (409, N_("%(place)s has events this round: send the warband to one of them.")),
    "order_place_taken": (409, N_("You already sent a warband to %(place)s.")),
    "order_unreachable": (409, N_("%(place)s cannot be reached: it is not yours nor one path away from your places.")),
    "order_model_unavailable": (409, N_("%(model)s is %(status)s and cannot be sent.")),
    "order_final": (403, N_("%(warband)s has been sent and stays so until the round ends; only the game master can undo an order.")),
    "order_undo_phase": (409, N_("Orders can be undone only before Battles.")),
    "order_none": (404, N_("%(warband)s has no order this round.")),
    # battles
    "battle_not_participant": (403, N_("Only the battle's participants can do that.")),
    "battle_winner_unknown": (422, N_("A winner must be one of the battle's players.")),
    "battle_one_winner": (422, N_("A battle of two warbands has one winner, or none for a draw.")),
    "battle_everyone_won": (422, N_("Not everybody can win; leave the winners empty for a draw.")),
    "battle_reported_already": (409, N_("The result has already been entered.")),
    "battle_nothing_to_confirm": (409, N_("There is no entered result to confirm.")),
    "battle_confirmed_already": (409, N_("You have already confirmed this result, or you entered it.")),
    "battle_decided": (409, N_("The result is decided; the game master can still correct it.")),
    "results_gm_now": (409, N_("Players enter, confirm and dispute results in Battles; now only the game master can decide or correct them.")),
    "results_closed": (409, N_("Results are entered in Battles (and decided by the game master until Settlement ends); from Twilight on they are closed.")),
    # the battle clock (issue 18)
    "clock_participants_only": (403, N_("Only the battle's players and the game master can run its clock.")),
    "clock_closed": (409, N_("The clock runs while the battle waits for its result, in Battles.")),
    "clock_changed": (409, N_("The clock changed meanwhile (another tap came first); here it is as it stands now.")),
    "clock_not_started": (409, N_("Start the clock first.")),
    "clock_running": (409, N_("The clock is already running.")),
    "clock_paused": (409, N_("The clock is paused; start it again first.")),
    "clock_ended": (409, N_("This game's clock has ended.")),
    "clock_side_unknown": (422, N_("That side does not fight in this battle.")),
    "clock_no_extra_turn": (409, N_("This game has no extra turn.")),
    "clock_rolled": (409, N_("The extra turn has already been rolled for.")),
    "clock_roll_invalid": (422, N_("A die roll is 1 to 6.")),
    "clock_turn_invalid": (422, N_("That turn is not in this game.")),
    "clock_remaining_invalid": (422, N_("Remaining time is set for one side of a timed game, between none and the whole time.")),
    # the season: deadlines and the daily digest (issue 19, app/season)
    "deadline_past": (422, N_("The deadline must be in the future.")),
    "deadline_too_far": (422, N_("The deadline may be at most %(days)s days ahead.")),
    "email_invalid": (422, N_("Enter an e-mail address like name@example.org.")),
    "digest_needs_email": (422, N_("Enter your e-mail address to receive the daily digest.")),
    # guilds (R8.1-R8.6); the campaign's word for guilds fills %(guild)s and its forms
    "guild_name_taken": (409, N_("The name %(name)s is already taken by another %(guild)s.")),
    "guild_member_already": (409, N_("%(nickname)s is already a member of one of the %(guilds)s.")),
    "guild_founder_dissolve_first": (409, N_("You founded %(name)s: dissolve it before joining another %(guild)s.")),
    "guild_in_alliance": (409, N_("%(nickname)s is in a %(alliance)s this round: joining any %(guild)s waits until it lapses or until withdrawing from it.")),
    "guild_full": (409, N_("The %(guild)s is full: at level %(level)s it holds its founder and %(allies)s more.")),
    "guild_founder_only": (403, N_("Only the founder of the %(guild_of)s can do that.")),
    "guild_not_member": (409, N_("You do not belong to this %(guild)s.")),
    "guild_founder_leaves": (409, N_("The founder does not leave the %(guild)s: dissolve it instead.")),
    "guild_shared_battle": (409, N_("Nobody leaves their %(guild)s during a shared battle that is not yet resolved (%(place)s).")),
    "guild_top_level": (409, N_("The %(guild)s is already at the highest level (%(level)s).")),
    "guild_request_pending": (409, N_("%(nickname)s already has a request or invitation waiting for this %(guild)s.")),
    "guild_request_decided": (409, N_("This has already been answered.")),
    "guild_entry_unaffordable": (409, N_("%(nickname)s cannot pay the entry fee of %(fee)s gold (has %(have)s).")),
    "guild_invite_self": (422, N_("You cannot invite yourself.")),
    "guild_dissolved": (409, N_("This %(guild)s has been dissolved.")),
    # mission alliances (R8.7-R8.9)
    "alliance_phase": (409, N_("%(Alliances)s are made and joined only in Preparation and Orders.")),
    "alliance_guild_member": (409, N_("%(nickname)s is a member of one of the %(guilds)s, and their members do not make %(alliances)s.")),
    "alliance_event_inactive": (409, N_("This event is not active in the current round.")),
    "alliance_invite_none": (422, N_("Invite at least one other player.")),
    "alliance_invite_self": (422, N_("You cannot invite yourself.")),
    "alliance_already_at_event": (409, N_("%(nickname)s is already in a %(alliance)s for this event.")),
    "alliance_not_invited": (409, N_("You have no invitation waiting for this %(alliance)s.")),
    "alliance_not_member": (409, N_("You are not a member of this %(alliance_of)s.")),
    "alliance_over": (409, N_("This %(alliance)s is over.")),
    # letters (R8.12)
    "letter_recipient": (422, N_("Write the letter either to a player or to the game master.")),
    "letter_to_self": (422, N_("You cannot write a letter to yourself.")),
    "letter_recipient_only": (403, N_("Only the letter's recipient marks it read or unread.")),
    # warband movement (R9.8)
    "warband_gather_hideout": (422, N_("A new warband gathers in one of your hideouts: choose one of them.")),
    "warband_away": (409, N_("%(warband)s stands at %(place)s, away from your hideouts: its roster changes only in a hideout.")),
    "model_away": (409, N_("%(model)s is with %(warband)s, away from your hideouts: its items change only in a hideout.")),
    "order_not_a_move": (409, N_("%(warband)s cannot reach %(place)s from where it stands.")),
    "place_has_warbands": (409, N_("%(warband)s stands at %(place)s: place it elsewhere before removing the place.")),
    "warband_scattered": (409, N_("%(warband)s is scattered: the game master places it first.")),
    # phases
    "not_running": (409, N_("This is possible only while the campaign is running.")),
    "phase_unknown": (422, N_("Unknown phase %(phase)s.")),
    "phase_same": (409, N_("The round is already in %(phase)s.")),
    "phase_backward": (409, N_("There is no way back from %(current)s to %(target)s.")),
    "phase_skip": (409, N_("From %(current)s the next phase is %(next)s, not %(target)s.")),
    "end_round_phase": (409, N_("A round ends only in Twilight; it is now %(phase)s.")),
    "end_round_mismatch": (409, N_("Round %(requested)s cannot be ended: the current round is %(round)s.")),
    # the Twilight gate, Twilight and End round (R7.2-R7.6)
    "twilight_gate": (409, N_("Twilight cannot open yet. Results to enter or confirm: %(results)s. Disputes for the game master: %(disputes)s. Settlements still open: %(settlements)s.")),
    "twilight_phase": (409, N_("The game master chooses who takes a place in Twilight.")),
    "twilight_no_choice": (409, N_("%(place)s needs no choice: the rules say who takes it.")),
    "twilight_candidate": (422, N_("Choose one of the players the rules leave open for %(place)s.")),
    "twilight_choice_missing": (409, N_("The round cannot end yet: choose who takes %(places)s.")),
    # settlement (R7.1, V11-V17)
    "settlement_phase": (409, N_("Battles of this round are settled in the Settlement phase.")),
    "settlement_owner_only": (403, N_("Only the warband's owner settles it.")),
    "settlement_closed": (409, N_("This settlement is closed; only the game master can reopen it, until Twilight.")),
    "settlement_not_closed": (409, N_("This settlement is not closed.")),
    "settlement_reopen_phase": (409, N_("A settlement can be reopened only in Settlement, before Twilight.")),
    "settlement_ransom_paid": (409, N_("A ransom from this settlement has been paid; it can no longer be reopened.")),
    "settlement_result_pending": (409, N_("The battle's result is not decided yet; close the settlement once it is confirmed or resolved.")),
    "settlement_model_unknown": (422, N_("Model %(model_id)s is not one of this warband's models still in play.")),
    "settlement_took_out_too_many": (422, N_("%(count)s enemy models taken out, but there were only %(enemies)s.")),
    "settlement_result_mismatch": (422, N_("The battle's result for this warband is %(result)s.")),
    "settlement_result_rolled": (409, N_("%(model)s's casualty result was rolled; only the Healer's re-roll changes it.")),
    "settlement_rolled_taken_out": (409, N_("%(model)s has a rolled casualty result, so it stays taken out.")),
    "settlement_rolled_already": (409, N_("%(model)s's casualty result is already rolled.")),
    "settlement_injury_not_taken_out": (409, N_("%(model)s was not taken out: mark it as taken out first.")),
    "settlement_injury_missing": (422, N_("Every model taken out needs a casualty result: %(models)s.")),
    "settlement_injury_text": (422, N_("Describe %(model)s's permanent injury.")),
    "settlement_captor_missing": (422, N_("Say who captured %(model)s.")),
    "settlement_captor_unknown": (422, N_("The captor must be an opponent in this battle.")),
    "settlement_no_healer": (409, N_("There is no Healer in this warband.")),
    "settlement_healer_used": (409, N_("The Healer's re-roll for this battle is used.")),
    "settlement_nothing_to_reroll": (409, N_("Roll %(model)s's casualty result first; the Healer re-rolls a rolled result.")),
    "settlement_xp_over": (422, N_("%(extra)s experience more than the house rules give, but the leader hands out only %(bonus)s.")),
    "settlement_rank_not_due": (422, N_("%(model)s has not reached rank %(rank)s.")),
    "settlement_rank_order": (422, N_("%(model)s rises one rank at a time: record the lower rank first.")),
    "settlement_item_unknown": (422, N_("That item is neither carried by this warband nor in the stash.")),
    "settlement_item_not_lost": (422, N_("%(item)s can be lost only with a dead or captured model.")),
    "settlement_item_to_gone": (422, N_("%(model)s is dead or captured and cannot carry %(item)s.")),
    "settlement_leader_command": (422, N_("The leader must be a Command model; %(model)s is not.")),
    "ransom_phase": (409, N_("Ransoms are named and paid in the round's Settlement and Twilight.")),
    "ransom_decided": (409, N_("This ransom has already been decided.")),
    "ransom_captor_only": (403, N_("Only the captor names the ransom.")),
    "ransom_owner_only": (403, N_("Only the prisoner's owner pays or refuses the ransom.")),
    "ransom_no_offer": (409, N_("The captor has not named a price yet.")),
    "casualty_table_invalid": (422, N_("The casualty table has %(min)s to %(max)s faces, each with a result.")),
    "ranks_invalid": (422, N_("Rank thresholds are rising whole numbers above zero, %(max)s at most.")),
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
    "path_cross_map": (422, N_("A path joins two places on the same map; use an entry point to join a place's map to its parent.")),
    "path_exists": (409, N_("These two places are already joined by a path.")),
    "entry_needs_parent": (422, N_("Only a place on a place's own map can be an entry from the parent place.")),
    "map_has_places": (409, N_("%(place)s has places on its map; remove them before removing the map.")),
    # export and import (issue 19)
    "import_no_file": (422, N_("Choose a campaign export file (.json) to import.")),
    "import_not_json": (422, N_("The file is not a JSON document, so it is not a campaign export.")),
    "import_not_export": (422, N_("This is not a Hideout campaign export: its format must be %(format)s.")),
    "import_version": (422, N_("This export has version %(version)s; this server reads version %(supported)s.")),
    "import_part_invalid": (422, N_("The export's %(part)s are not a list of rows with distinct numbers.")),
    "import_row_invalid": (422, N_("Row %(row)s of the export's %(part)s has an invalid %(field)s.")),
    "import_reference": (422, N_("Row %(row)s of the export's %(part)s refers in %(field)s to number %(number)s, which the export does not have.")),
    "import_nickname": (422, N_("Player %(row)s of the export has no valid nickname, or the same one as another player.")),
    "import_gold": (422, N_("The gold of %(nickname)s (%(gold)s) is not the sum of their ledger (%(total)s).")),
    "import_gold_negative": (422, N_("The gold of %(nickname)s is below zero (%(gold)s).")),
    "import_image": (422, N_("A map image in the export is not valid base64 image data.")),
    "import_contradiction": (422, N_("The export contradicts itself (a duplicate or an impossible value); nothing was imported.")),
    # webhooks (issue 19)
    "webhook_url_invalid": (422, N_("A webhook address starts with http:// or https:// and names a host.")),
    "webhook_url_private": (422, N_("%(host)s is a private, local or reserved address; webhooks only go to public addresses.")),
    "webhook_host_unknown": (422, N_("The host %(host)s could not be found.")),
    "webhook_too_many": (409, N_("A campaign has %(max)s webhooks at most; remove one first.")),
}


class DomainError(Exception):
    def __init__(
        self, code: str, *, details: list[dict[str, Any]] | None = None, persist: bool = False, **params: Any
    ):
        if code not in ERRORS:
            raise KeyError(f"unknown error code {code}")
        super().__init__(code)
        self.code = code
        # A refusal normally changes nothing; a failed login must still be counted.
        self.persist = persist
        self.params = params
        self.details = details or []

    @property
    def status(self) -> int:
        return ERRORS[self.code][0]


def message_for(code: str, params: dict[str, Any], gettext) -> str:
    template = gettext(ERRORS[code][1])
    # Msg: a message; anything with `text(gettext)`: a wait, or a campaign's word (R8.2).
    translated = {k: (gettext(v) if isinstance(v, Msg) else v.text(gettext) if hasattr(v, "text") else v)
                  for k, v in params.items()}
    try:
        return template % translated if translated else template
    except (KeyError, TypeError, ValueError):
        return template


def detail_messages(details: list[dict[str, Any]], gettext) -> list[dict[str, Any]]:
    """Services report every problem as a code with raw parameters; the reader's language is
    added at the edge (API error body, page)."""
    out = []
    for detail in details:
        if "message" not in detail and detail.get("code") in ERRORS:
            params = {k: v for k, v in detail.items() if k not in ("code", "field")}
            detail = {**detail, "message": message_for(detail["code"], params, gettext)}
        out.append(detail)
    return out


class Msg(str):
    """A parameter that is itself a message to translate (a phase or status name)."""


def _english_ngettext(singular: str, plural: str, n: int) -> str:
    return singular if n == 1 else plural


class Duration(int):
    """A parameter that is a wait in whole seconds, said in the reader's language:
    seconds under two minutes, else minutes rounded up ("45 seconds", "3 minuty")."""

    def text(self, gettext) -> str:
        # `gettext` is a catalog's bound method; its catalog has the plural forms too.
        ngettext = getattr(getattr(gettext, "__self__", None), "ngettext", None) or _english_ngettext
        seconds = max(1, int(self))
        if seconds < 120:
            return ngettext("%(num)s second", "%(num)s seconds", seconds) % {"num": seconds}
        minutes = -(-seconds // 60)
        return ngettext("%(num)s minute", "%(num)s minutes", minutes) % {"num": minutes}


# The error body of API.md, declared on every API operation (OpenAPI `responses`).
def error_responses() -> dict[int, dict]:
    class ErrorDetail(BaseModel):
        code: str
        message: str
        details: list[dict[str, Any]] = []
        request_id: str | None = None

    class ErrorBody(BaseModel):
        error: ErrorDetail

    texts = {401: "Not logged in", 403: "Not allowed", 404: "Not found, or not visible to you", 405: "Method not allowed",
             409: "Wrong state (phase, status, already done)", 413: "Request body too large",
             422: "Invalid input: every problem in details", 429: "Too many attempts; wait and try again",
             503: "The database cannot be reached just now (database_unavailable): nothing was written; try again"}
    return {status: {"model": ErrorBody, "description": text} for status, text in texts.items()}
