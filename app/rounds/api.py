"""The round's flow over the API: phase changes (with the Twilight gate), Twilight and the
GM's choices, End round. The URLs are those of API.md."""

from __future__ import annotations

from fastapi import APIRouter

from app.accounts.deps import ApiUser, SessionDep
from app.campaigns.api import campaign_out
from app.campaigns.schemas import CampaignOut, EndRoundIn, PhaseIn
from app.catalog.deps import CatalogDep
from app.core.types import PathId
from app.rounds import service
from app.rounds.schemas import ArrivalOut, ChoiceIn, MissingOut, TwilightOut, TwilightRowOut

router = APIRouter()


@router.post("/campaigns/{cid}/phase", response_model=CampaignOut, tags=["campaigns"])
def phase(cid: PathId, body: PhaseIn, user: ApiUser, session: SessionDep, catalog: CatalogDep):
    """GM: the next phase (R2.1, R2.2). Battles announces the battles; Twilight opens only
    when every battle is confirmed or resolved and every settlement closed (R7.2) — otherwise
    409 `twilight_gate`, with what is missing and from whom in `details`."""
    campaign = service.set_phase(session, actor=user, campaign_id=cid, phase=body.phase, catalog=catalog)
    return campaign_out(session, campaign)


@router.post("/campaigns/{cid}/end-round", response_model=CampaignOut, tags=["campaigns"])
def end_round(cid: PathId, body: EndRoundIn, user: ApiUser, session: SessionDep):
    """GM, in Twilight: captures, income, expired events, the next round in Preparation, in
    one transaction (R2.3, R7.6). `round` must be the current round, so a repeat changes
    nothing (409 `end_round_mismatch`); refused while a Twilight choice is missing."""
    result = service.end_round(session, actor=user, campaign_id=cid, round_=body.round)
    return campaign_out(session, result.campaign)


def twilight_out(view: service.TwilightView) -> TwilightOut:
    campaign = view.viewer.campaign
    places = []
    for row in view.rows:
        o = row.outcome
        kind = "gm_choice" if o.needs_gm_choice else ("taken" if row.changes_hands else "kept")
        places.append(
            TwilightRowOut(
                place_id=row.place_id,
                outcome=kind,
                reason=o.reason,
                owner_player_id=o.owner,
                proposed_owner_player_id=row.new_owner,
                needs_gm_choice=o.needs_gm_choice,
                candidates=list(o.candidates),
                chosen_player_id=row.choice,
                battle_ids=[v.battle.id for v in row.battles],
                arrivals=[
                    ArrivalOut(warband_id=a.warband_id, player_id=a.player_id, event_id=a.event_id, kind=a.kind)
                    for a in row.unopposed + row.left_out
                ],
            )
        )
    return TwilightOut(
        round=campaign.round,
        phase=campaign.phase,
        final=view.final,
        places=places,
        choices_missing=[r.place_id for r in view.choices_missing],
        waiting_for=[
            MissingOut(kind=m.kind, battle_id=m.battle_id, place_id=m.place_id, player_ids=list(m.player_ids), warband=m.warband)
            for m in view.missing
        ],
    )


@router.get("/campaigns/{cid}/twilight", response_model=TwilightOut, tags=["rounds"])
def twilight(cid: PathId, user: ApiUser, session: SessionDep):
    """Members: for every place where warbands arrived this round, its outcome (R7.3-R7.5,
    R8.10), the proposed owner and whether the GM must choose. Before Twilight it previews the
    outcome of the results so far (`final` false) and lists what Twilight waits for."""
    return twilight_out(service.twilight(session, actor=user, campaign_id=cid))


@router.post("/campaigns/{cid}/twilight/choices", response_model=TwilightOut, tags=["rounds"])
def choose(cid: PathId, body: ChoiceIn, user: ApiUser, session: SessionDep):
    """GM, in Twilight: who takes a place the rules leave open (several winners, or several
    unrelated unopposed players at a free place); it can be changed until End round."""
    service.choose(session, actor=user, campaign_id=cid, place_id=body.place_id, player_id=body.player_id)
    return twilight_out(service.twilight(session, actor=user, campaign_id=cid))
