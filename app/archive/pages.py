"""The season's end on pages (R12.4, R12.5, R12.7): the Standings tab (with the links to the
season book, the member's calendar and the GM's club screens), the printable season book, the
club screen itself (no login: its token) and the calendar feed (no login: its token)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response
from markupsafe import Markup

from app.accounts.deps import PageUser, SessionDep
from app.archive import calendar, links, screen
from app.archive.api import absolute
from app.archive.standings import standings
from app.campaigns.deps import CampaignContext, CampaignPage
from app.campaigns.terms import campaign_words
from app.chronicle.texts import entry_text
from app.core.db import utcnow
from app.core.errors import N_
from app.core.i18n import DEFAULT_LOCALE, translations
from app.core.page_actions import page_action
from app.core.templating import render, request_gettext
from app.core.types import PathId
from app.maps import view as drawing

router = APIRouter()
SCREEN_REFRESH = 20  # seconds between the club screen's refreshes (a timed htmx poll, see screen.html)
CONFIRM_REVOKE = (
    N_("Revoke this club screen link?"),
    N_("A screen showing it stops at its next refresh. This cannot be undone."),
    N_("Revoke"),
)


def standings_page(page: CampaignContext, status_code: int = 200, error: str | None = None):
    viewer = page.viewer
    screens = links.screen_links_for(page.session, viewer) if viewer.is_gm else []
    return render(
        page.request,
        "archive/standings.html",
        status_code=status_code,
        viewer=viewer,
        campaign=viewer.campaign,
        rows=standings(page.session, viewer),
        screens=screens,
        error=error,
        tab="standings",
    )


@router.get("/campaigns/{cid}/standings")
def standings_tab(page: CampaignPage):
    return standings_page(page)


@router.post("/campaigns/{cid}/screen-links")
def new_screen(page: CampaignPage):
    return page_action(
        page,
        lambda: links.new_screen_link(page.session, actor=page.user, campaign_id=page.cid),
        again=lambda **kw: standings_page(page, **kw),
        done=lambda made: page.redirect(
            f"/campaigns/{page.cid}/standings#screens",
            N_("Club screen link made: %(address)s — open it on the club's screen. It is shown only now."),
            address=absolute(page.request, f"/screen/{made[1]}"),
        ),
    )


@router.post("/campaigns/{cid}/screen-links/{lid}/revoke")
def revoke_screen(lid: PathId, page: CampaignPage):
    back = f"/campaigns/{page.cid}/standings#screens"
    return page_action(
        page,
        lambda: links.revoke_screen_link(page.session, actor=page.user, campaign_id=page.cid, link_id=lid),
        again=lambda **kw: standings_page(page, **kw),
        ask=lambda _link: page.ask(CONFIRM_REVOKE, cancel=back, tab="standings", danger=True),
        done=lambda _link: page.redirect(back, N_("Club screen link revoked.")),
    )


@router.post("/campaigns/{cid}/calendar-link")
def new_calendar(page: CampaignPage):
    return page_action(
        page,
        lambda: links.new_calendar_link(page.session, actor=page.user, campaign_id=page.cid),
        again=lambda **kw: standings_page(page, **kw),
        done=lambda token: page.redirect(
            f"/campaigns/{page.cid}/standings#calendar",
            N_("Your calendar link: %(address)s — add it to your calendar app. Any older link of yours stops working."),
            address=absolute(page.request, f"/calendar/{token}.ics"),
        ),
    )


@router.get("/campaigns/{cid}/season-book")
def season_book(page: CampaignPage):
    """R12.4: the whole season in one printable document (a print stylesheet in archive.css)."""
    viewer = page.viewer
    gettext = request_gettext(page.request)
    words = campaign_words(viewer.campaign, gettext)
    rounds = screen.book(page.session, viewer)
    return render(
        page.request,
        "archive/book.html",
        viewer=viewer,
        campaign=viewer.campaign,
        rounds=[
            (
                r,
                _svg(r.view, viewer.campaign.id, page.request, f"r{r.round}"),
                [entry_text(e, gettext, words) for e in r.chronicle],
            )
            for r in rounds
        ],
        rows=standings(page.session, viewer),
        tab="standings",
    )


def _svg(view, campaign_id: int, request: Request, prefix: str = ""):
    """A map drawn as maps/view.py draws it; `prefix` keeps its element ids apart from the
    other maps of the same page (the season book has one a round)."""
    if view is None:
        return None
    markers = drawing.markers(view)
    ngettext = translations(getattr(request.state, "locale", DEFAULT_LOCALE)).ngettext
    paths = drawing.svg_paths(drawing.lines(view, markers))
    places = drawing.svg_places(markers, {}, campaign_id, ngettext)
    if prefix:
        paths = Markup(str(paths).replace('<line id="w', f'<line id="{prefix}w'))
        places = Markup(str(places).replace('<a id="p', f'<a id="{prefix}p'))
    return {"height": view.height, "paths": paths, "places": places}


@router.get("/screen/{token}")
def club_screen(token: str, request: Request, session: SessionDep, _user: PageUser):
    """R12.5: no login — the token is the key; revoked or forged: not found."""
    campaign = links.campaign_of_screen(session, token)
    shown = screen.screen(session, campaign)
    gettext = request_gettext(request)
    words = campaign_words(campaign, gettext)
    return render(
        request,
        "archive/screen.html",
        screen=shown,
        campaign=campaign,
        map=_svg(shown.view, campaign.id, request),
        entries=[(e, entry_text(e, gettext, words)) for e in shown.chronicle],
        refresh=SCREEN_REFRESH,
        token=token,
    )


@router.get("/calendar/{token}.ics")
def calendar_feed(token: str, request: Request, session: SessionDep):
    """R12.7: no login — the member's private token; in the member's language."""
    campaign, member = links.calendar_of(session, token)
    gettext = translations(member.locale or DEFAULT_LOCALE).gettext
    found = calendar.events(session, campaign, gettext)
    body = calendar.ics(
        campaign, found, absolute(request, f"/campaigns/{campaign.id}"), request.url.hostname or "hideout", utcnow()
    )
    return Response(body, media_type="text/calendar; charset=utf-8", headers={"Cache-Control": "private, no-store"})
