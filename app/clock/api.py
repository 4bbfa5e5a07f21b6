"""The battle clock over the API (API.md `clock`, `clock-settings`)."""

from __future__ import annotations

from fastapi import APIRouter

from app.accounts.deps import ApiUser, SessionDep
from app.campaigns.service import campaign_of
from app.clock import service
from app.clock.schemas import ClockOut, ClockSettingsIn, ClockSettingsOut, ClockTapIn, EventClockIn, EventClockOut
from app.core.types import PathId

router = APIRouter(tags=["clock"])


def _settings_out(settings) -> ClockSettingsOut:
    return ClockSettingsOut(**settings.as_dict())


@router.get("/campaigns/{cid}/clock-settings", response_model=ClockSettingsOut)
def get_clock_settings(cid: PathId, user: ApiUser, session: SessionDep):
    """The campaign's battle clock defaults (members)."""
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    return _settings_out(service.campaign_settings(viewer.campaign))


@router.put("/campaigns/{cid}/clock-settings", response_model=ClockSettingsOut)
def put_clock_settings(cid: PathId, body: ClockSettingsIn, user: ApiUser, session: SessionDep):
    """GM: the default clock of the campaign's battles; an event may override it."""
    campaign = service.set_campaign_settings(session, actor=user, campaign_id=cid, settings=body.settings())
    return _settings_out(service.campaign_settings(campaign))


@router.put("/campaigns/{cid}/events/{eid}/clock-settings", response_model=EventClockOut)
def put_event_clock_settings(cid: PathId, eid: PathId, body: EventClockIn, user: ApiUser, session: SessionDep):
    """GM: the clock of one event's battles (`clock: null`: the campaign's)."""
    event = service.set_event_settings(
        session, actor=user, campaign_id=cid, event_id=eid, settings=body.clock.settings() if body.clock else None
    )
    viewer = campaign_of(session, actor=user, campaign_id=cid)
    return EventClockOut(
        event_id=event.id,
        clock=_settings_out(service.rules.settings_of(event.clock)) if event.clock else None,
        effective=_settings_out(service.battle_settings(viewer.campaign, event)),
    )


@router.get("/campaigns/{cid}/battles/{bid}/clock", response_model=ClockOut)
def get_clock(cid: PathId, bid: PathId, user: ApiUser, session: SessionDep):
    """The battle's clock, as every phone at the table sees it (members)."""
    return service.battle_clock(session, actor=user, campaign_id=cid, battle_id=bid).as_dict()


@router.post("/campaigns/{cid}/battles/{bid}/clock", response_model=ClockOut)
def tap_clock(cid: PathId, bid: PathId, body: ClockTapIn, user: ApiUser, session: SessionDep):
    """Participants (and the GM) run the clock; only the GM corrects it."""
    tap = service.Tap(**body.model_dump())
    return service.act(session, actor=user, campaign_id=cid, battle_id=bid, tap=tap).as_dict()
