"""The refusals of the game's rules: code -> (HTTP status, English message with %(name)s
parameters). Add a code here when it is about gold, companies and the shop, events, warbands and
orders, battles and their clock, guilds, alliances, letters, movement, Twilight or settlement; a
code of the server or the campaign's frame goes to app/core/error_codes.py. app/core/errors.py
merges the two into ERRORS."""

from __future__ import annotations

from app.core.error_codes import N_

# code -> (HTTP status, English message with %(name)s parameters)
RULE_ERRORS: dict[str, tuple[int, str]] = {
    # gold
    "not_enough_gold": (409, N_("Not enough gold: %(needed)s needed, you have %(have)s.")),
    # R11.2: the GM's deduction, with gold transfers on, says no balance and no shortfall
    "gm_deduction_uncovered": (409, N_("The player does not have enough gold for this deduction.")),
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
    # roster import (R12.15): the file first, then the company
    "roster_no_file": (422, N_("Choose a roster file (.ros or .rosz) saved by BattleScribe or New Recruit.")),
    "roster_too_large": (422, N_("The roster file is larger than %(max_mb)s MB; a Vanguard roster is far smaller.")),
    "roster_not_xml": (422, N_("The file is neither a roster (.ros, XML) nor a zipped roster (.rosz).")),
    "roster_unsafe_xml": (
        422,
        N_("The roster declares a DTD or XML entities, or refers to other files; such files are refused unread."),
    ),
    "roster_not_roster": (422, N_("This XML is not a BattleScribe roster (a roster in the rosterSchema namespace).")),
    "roster_archive_invalid": (422, N_("The .rosz file is not a zip archive that can be read.")),
    "roster_archive_members": (422, N_("A .rosz file holds exactly one roster file; this one holds %(count)s entries.")),
    "roster_archive_too_large": (422, N_("The roster inside the .rosz file is larger than %(max_mb)s MB unpacked.")),
    "roster_too_many_models": (422, N_("The roster has more than %(max)s models; a company is far smaller.")),
    "roster_no_models": (422, N_("The roster has no models.")),
    "roster_two_factions": (422, N_("The roster has forces of several catalogues (%(factions)s); a company has one faction.")),
    "roster_faction_unknown": (422, N_("The roster's catalogue %(catalogue)s is not a faction of this server's catalog.")),
    "roster_nothing_matched": (422, N_("None of the roster's models is in the catalog: %(names)s.")),
    "roster_other_faction": (
        409,
        N_(
            "The roster is of %(roster)s but your company is of %(company)s: import a roster of %(company)s, "
            "or choose %(roster)s as the faction first (before the company is confirmed)."
        ),
    ),
    # events
    "event_scenario_or_mission": (422, N_("Choose a scenario or write another mission, not both.")),
    "scenario_unknown": (422, N_("There is no scenario %(scenario)s in the catalog.")),
    "other_mission_text": (422, N_("Write the other mission's text.")),
    "event_ended": (409, N_("The event has ended.")),
    "event_not_in_library": (409, N_("Only an event that is over can be run again.")),
    "event_edit_after_battles": (
        409,
        N_(
            "Battles are announced: the orders sent to this event stand until the round ends, so it cannot "
            "become a blockade, take a points limit under a sent warband, or end."
        ),
    ),
    # warbands and orders
    "warband_invalid": (422, N_("The warband breaks the rules; every problem is listed.")),
    "warband_points_over": (422, N_("%(points)s points but the limit is %(limit)s.")),
    "warband_no_command": (422, N_("A warband needs a Command model.")),
    "warband_no_fighter": (422, N_("A warband needs a Grunt or Warrior model.")),
    # V-limits (issue 29): the plural form; PLURALS holds the singular and the count it agrees with.
    "warband_command_limit": (422, N_("%(count)s Command models, but at most %(max)s allowed (Grunt/Warrior models: %(gw)s).")),
    "warband_support_limit": (422, N_("%(count)s Support models, but at most %(max)s allowed (Grunt/Warrior models: %(gw)s).")),
    "warband_spellcaster_limit": (
        422,
        N_("%(count)s Spellcaster models, but at most %(max)s allowed (Grunt/Warrior models: %(gw)s)."),
    ),
    "warband_large_limit": (422, N_("%(count)s Large models, but at most %(max)s allowed in %(limit)s points.")),
    "warband_copies_limit": (422, N_("%(count)s × %(name)s, but at most %(max)s allowed in %(limit)s points.")),
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
    "order_model_unavailable": (409, N_("%(warband)s cannot be sent: %(unfit)s.")),
    # why a model cannot fight (R4.7): the details of order_model_unavailable, and the warband pages
    "model_unfit_dead": (409, N_("%(model)s is dead")),
    "model_unfit_captured": (409, N_("%(model)s has been captured")),
    "model_unfit_miss_next": (409, N_("%(model)s misses the next battle")),
    "warband_take_out_fit": (409, N_("%(model)s can fight: change the warband's models in the builder.")),
    "order_final": (
        403,
        N_("%(warband)s has been sent and stays so until the round ends; only the game master can undo an order."),
    ),
    "order_undo_phase": (409, N_("Orders can be undone only before Battles.")),
    "order_none": (404, N_("%(warband)s has no order this round.")),
    # battles
    "battle_not_participant": (403, N_("Only the battle's participants can do that.")),
    "battle_winner_unknown": (422, N_("A winner must be one of the battle's players.")),
    "battle_one_winner": (422, N_("A battle of two warbands has one winner, or none for a draw.")),
    "battle_everyone_won": (422, N_("Not everybody can win; leave the winners empty for a draw.")),
    "battle_reported_already": (409, N_("The result has already been entered.")),
    "battle_nothing_to_confirm": (409, N_("There is no entered result to confirm.")),
    # R6.8: one confirmation from each side but the reporter's
    "battle_confirmed_already": (409, N_("Your side has already entered or confirmed this result.")),
    "battle_own_side": (409, N_("Your side entered this result: a player of another side confirms it.")),
    "battle_decided": (409, N_("The result is decided; the game master can still correct it.")),
    "results_gm_now": (
        409,
        N_("Players enter, confirm and dispute results in Battles; now only the game master can decide or correct them."),
    ),
    "results_closed": (
        409,
        N_(
            "Results are entered in Battles (and decided by the game master until Settlement ends); from Twilight on they are closed."
        ),
    ),
    # the battle clock (issue 18)
    "clock_participants_only": (403, N_("Only the battle's players and the game master can run its clock.")),
    "clock_closed": (409, N_("The clock runs while the battle waits for its result, in Battles.")),
    "clock_changed": (409, N_("The clock changed meanwhile (another tap came first); here it is as it stands now.")),
    "clock_not_started": (409, N_("Start the clock first.")),
    "clock_running": (409, N_("The clock is already running.")),
    "clock_paused": (409, N_("The clock is paused; start it again first.")),
    "clock_ended": (409, N_("This game's clock has ended.")),
    "clock_side_unknown": (422, N_("That side does not fight in this battle.")),
    # at the table (issue 33): one-tap confirm links (R12.2), photos (R12.3)
    "confirm_link_reporter_only": (403, N_("Only the side that entered the result shares a link to confirm it.")),
    "confirm_link_player_unknown": (422, N_("Pick which of the other sides' players you are.")),
    "photo_participants_only": (403, N_("Only the battle's players and the game master can add photos.")),
    "photo_owner_only": (403, N_("Only the photo's owner or the game master can delete it.")),
    "photo_too_many": (409, N_("A battle has %(max)s photos at most; delete one first.")),
    "clock_no_extra_turn": (409, N_("This game has no extra turn.")),
    "clock_rolled": (409, N_("The extra turn has already been rolled for.")),
    "clock_roll_invalid": (422, N_("A die roll is 1 to 6.")),
    "clock_turn_invalid": (422, N_("That turn is not in this game.")),
    "clock_remaining_invalid": (422, N_("Remaining time is set for one side of a timed game, between none and the whole time.")),
    # guilds (R8.1-R8.6); the campaign's word for guilds fills %(guild)s and its forms
    "guild_name_taken": (409, N_("The name %(name)s is already taken by another %(guild)s.")),
    "guild_member_already": (409, N_("%(nickname)s is already a member of one of the %(guilds)s.")),
    "guild_founder_dissolve_first": (409, N_("You founded %(name)s: dissolve it before joining another %(guild)s.")),
    "guild_in_alliance": (
        409,
        N_(
            "%(nickname)s is in a %(alliance)s this round: joining any %(guild)s waits until it lapses or until withdrawing from it."
        ),
    ),
    "guild_full": (409, N_("The %(guild)s is full: at level %(level)s it holds its founder and %(allies)s more.")),
    "guild_founder_only": (403, N_("Only the founder of the %(guild_of)s can do that.")),
    "guild_not_member": (409, N_("You do not belong to this %(guild)s.")),
    "guild_founder_leaves": (409, N_("The founder does not leave the %(guild)s: dissolve it instead.")),
    "guild_shared_battle": (
        409,
        N_("Nobody leaves their %(guild)s during a shared battle that is not yet resolved (%(place)s)."),
    ),
    "guild_top_level": (409, N_("The %(guild)s is already at the highest level (%(level)s).")),
    "guild_request_pending": (409, N_("%(nickname)s already has a request or invitation waiting for this %(guild)s.")),
    "guild_request_decided": (409, N_("This has already been answered.")),
    # Without the player's gold: the founder accepting a request must not learn it (R11.2).
    "guild_entry_unaffordable": (409, N_("%(nickname)s cannot pay the entry fee of %(fee)s gold.")),
    "guild_invite_self": (422, N_("You cannot invite yourself.")),
    "guild_dissolved": (409, N_("This %(guild)s has been dissolved.")),
    # mission alliances (R8.7-R8.9)
    "alliance_phase": (409, N_("%(Alliances)s are made and joined only in Preparation and Orders.")),
    "alliance_guild_member": (
        409,
        N_("%(nickname)s is a member of one of the %(guilds)s, and their members do not make %(alliances)s."),
    ),
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
    # the Twilight gate, Twilight and End round (R7.2-R7.6)
    "twilight_gate": (
        409,
        N_(
            "Twilight cannot open yet. Results to enter or confirm: %(results)s. Disputes for the game master: %(disputes)s. Settlements still open: %(settlements)s."
        ),
    ),
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
    "settlement_result_pending": (
        409,
        N_("The battle's result is not decided yet; close the settlement once it is confirmed or resolved."),
    ),
    "settlement_model_unknown": (422, N_("Model %(model_id)s is not one of this warband's models still in play.")),
    "settlement_took_out_too_many": (422, N_("Enemy models taken out: %(count)s, but there were only %(enemies)s.")),
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
    "settlement_xp_over": (
        422,
        N_("%(extra)s experience more than the house rules give, but the leader hands out only %(bonus)s."),
    ),
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
}


# Issue 29: messages with a count take the reader's plural form (Polish has three): code ->
# (the singular msgid, the parameter counted); ERRORS holds the plural msgid.
PLURALS: dict[str, tuple[str, str]] = {
    "warband_command_limit": (
        N_("%(count)s Command model, but at most %(max)s allowed (Grunt/Warrior models: %(gw)s)."),
        "count",
    ),
    "warband_support_limit": (
        N_("%(count)s Support model, but at most %(max)s allowed (Grunt/Warrior models: %(gw)s)."),
        "count",
    ),
    "warband_spellcaster_limit": (
        N_("%(count)s Spellcaster model, but at most %(max)s allowed (Grunt/Warrior models: %(gw)s)."),
        "count",
    ),
    "warband_large_limit": (N_("%(count)s Large model, but at most %(max)s allowed in %(limit)s points."), "count"),
}
