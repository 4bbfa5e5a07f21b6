"""The composition root (issue 31): every port a lower layer declares is plugged here, once, in
a written order. create_app, every `hideout` command, the scheduler's tick and the tests call
`wire()` before anything else; a port left unplugged refuses to answer (app/core/ports.py).

What the round's steps do across domains is not here but in app/rounds/steps.py, which names
the domains it drives; these are the few real inversions, where a lower domain must ask a
higher one, and the page parts that higher domains lend lower pages."""

from __future__ import annotations

from app.accounts import pages as account_pages
from app.alliances import pages as alliance_pages
from app.alliances import service as alliances
from app.battles import pages as battle_pages
from app.battles import service as battles
from app.campaigns import lifecycle, terms
from app.campaigns import pages as campaign_pages
from app.chronicle import service as chronicle
from app.clock import pages as clock_pages
from app.companies import service as companies
from app.core import background, page_head, templating
from app.events import service as events
from app.exports import pages as export_pages
from app.exports import service as exports
from app.guilds import pages as guild_pages
from app.guilds import service as guilds
from app.letters import pages as letter_pages
from app.letters import service as letters_service
from app.live import pages as live_pages
from app.live import service as live_service
from app.maps import service as maps
from app.movement import pages as movement_pages
from app.movement import service as movement
from app.people import service as people
from app.pwa import pages as pwa_pages
from app.rounds import pages as round_pages
from app.season import pages as season_pages
from app.season import reminders, scheduler
from app.season import service as season_service
from app.versions import (
    audience,  # noqa: F401  (every process that writes counts who sees its writes, issue 37)
    remembered,
)
from app.warbands import pages as warband_pages
from app.warbands import service as warbands
from app.warbands import undo
from app.webhooks import pages as webhook_pages
from app.webhooks import sender
from app.webhooks import service as webhooks


def wire() -> None:
    """Plug every port. Idempotent: a second call plugs the same things again."""
    # Domain inversions.
    maps.place_delete_guards.plug(
        battles.guard_place_delete,  # first: "a battle is fought there" says more than its orders
        events.guard_place_delete,
        movement.guard_place_delete,
        warbands.guard_place_delete,
    )
    companies.sent_models.plug(warbands.sent_models)
    companies.away_models.plug(movement.away_models)
    lifecycle.seat_takers.plug(exports.take_seat)
    people.seats_released.plug(exports.release_seat)
    events.event_ended.plug(alliances.undo_for_ended_event)
    guilds.join_guards.plug(alliances.guild_guard)
    chronicle.listeners.plug(webhooks.on_entries)  # the webhooks' outbox, in the writer's transaction
    background.jobs.plug(scheduler.run, sender.run)

    # Page parts, in display order.
    templating.context_hooks.plug(
        terms.template_words,
        guild_pages.players_tab,
        alliance_pages.pacts_hook,
        letter_pages.letters_tab,
        live_pages.live_stream,
        season_pages.deadline_head,
        pwa_pages.viewer_key,
    )
    # What every campaign page's head shows, and what tells the dashboard's panels whether
    # they have rows to read, in one statement (issue 37).
    page_head.head_reads.plug(
        letters_service.head_read,
        live_service.head_read,
        season_service.head_read,
        guilds.head_read,
        alliances.head_read,
        undo.head_read,
        remembered.head_read,
        remembered.public_head_read,
        remembered.map_head_read,
    )
    campaign_pages.dashboard_panels.plug(
        guild_pages.dashboard_panel,
        alliance_pages.dashboard_panel,
        letter_pages.dashboard_panel,
        season_pages.dashboard_panel,
        movement_pages.dashboard_panel,
        warband_pages.dashboard_panel,
        round_pages.dashboard_panel,
    )
    campaign_pages.advice_facts.plug(reminders.steps_done)
    campaign_pages.rules_sections.plug(clock_pages.rules_section, webhook_pages.rules_section, export_pages.rules_section)
    account_pages.account_sections.plug(season_pages.account_section)
    battle_pages.battle_parts.plug(clock_pages.battle_part)
