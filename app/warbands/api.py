from __future__ import annotations

from fastapi import APIRouter, Request, Response

from app.accounts.deps import ApiUser, SessionDep
from app.catalog.deps import CatalogDep
from app.core.errors import detail_messages
from app.core.templating import request_gettext
from app.core.types import PathId, QueryRound
from app.movement import service as movement
from app.warbands import orders as warband_orders
from app.warbands import service
from app.warbands.models import Order
from app.warbands.schemas import OrderIn, OrderOut, PositionIn, PositionOut, ProblemOut, WarbandIn, WarbandOut, WarbandPatch

router = APIRouter(tags=["warbands"])


def order_out(order: Order) -> OrderOut:
    return OrderOut(
        warband_id=order.warband_id,
        player_id=order.player_id,
        round=order.round,
        event_id=order.event_id,
        place_id=order.place_id,
        points=order.points,
        from_place_id=order.from_place_id,
    )


def _views(session, user, cid, catalog, request) -> dict[int, WarbandOut]:
    _viewer, views = service.list_warbands(session, actor=user, campaign_id=cid, catalog=catalog)
    gettext = request_gettext(request)
    return {
        v.warband.id: WarbandOut(
            id=v.warband.id,
            player_id=v.warband.player_id,
            name=v.warband.name,
            points=v.points,
            model_ids=[m.model_id for m in v.members],
            mercenary=v.warband.mercenary_key,
            problems=[
                ProblemOut(code=d["code"], message=d["message"])
                for d in detail_messages(service.problem_details(v.problems), gettext)
            ],
            order=order_out(v.order) if v.order else None,
            location_place_id=v.warband.location_place_id,
        )
        for v in views
    }


@router.get("/campaigns/{cid}/warbands", response_model=list[WarbandOut])
def list_warbands(cid: PathId, request: Request, user: ApiUser, session: SessionDep, catalog: CatalogDep):
    return list(_views(session, user, cid, catalog, request).values())


@router.post("/campaigns/{cid}/warbands", status_code=201, response_model=WarbandOut)
def create_warband(cid: PathId, body: WarbandIn, request: Request, user: ApiUser, session: SessionDep, catalog: CatalogDep):
    warband = service.create_warband(
        session,
        actor=user,
        campaign_id=cid,
        name=body.name,
        model_ids=body.model_ids,
        mercenary_key=body.mercenary,
        catalog=catalog,
        location_place_id=body.location_place_id,
    )
    return _views(session, user, cid, catalog, request)[warband.id]


@router.patch("/campaigns/{cid}/warbands/{wid}", response_model=WarbandOut)
def update_warband(
    cid: PathId, wid: PathId, body: WarbandPatch, request: Request, user: ApiUser, session: SessionDep, catalog: CatalogDep
):
    changes = body.model_dump(exclude_unset=True)
    service.update_warband(
        session,
        actor=user,
        campaign_id=cid,
        warband_id=wid,
        catalog=catalog,
        name=changes.get("name"),
        model_ids=changes.get("model_ids"),
        mercenary_key=changes.get("mercenary", False),
    )
    return _views(session, user, cid, catalog, request)[wid]


@router.delete("/campaigns/{cid}/warbands/{wid}", status_code=204)
def disband(cid: PathId, wid: PathId, user: ApiUser, session: SessionDep):
    service.disband(session, actor=user, campaign_id=cid, warband_id=wid)
    return Response(status_code=204)


@router.put("/campaigns/{cid}/warbands/{wid}/order", response_model=OrderOut)
def send(cid: PathId, wid: PathId, body: OrderIn, request: Request, user: ApiUser, session: SessionDep, catalog: CatalogDep):
    sent = warband_orders.send(
        session, actor=user, campaign_id=cid, warband_id=wid, catalog=catalog, event_id=body.event_id, place_id=body.place_id
    )
    return order_out(sent.order)


@router.delete("/campaigns/{cid}/warbands/{wid}/order", status_code=204)
def cancel(cid: PathId, wid: PathId, user: ApiUser, session: SessionDep):
    warband_orders.cancel(session, actor=user, campaign_id=cid, warband_id=wid)
    return Response(status_code=204)


@router.get("/campaigns/{cid}/orders", response_model=list[OrderOut])
def orders(cid: PathId, user: ApiUser, session: SessionDep, round: int | None = QueryRound()):
    return [order_out(o) for o in warband_orders.orders_seen(session, actor=user, campaign_id=cid, round_=round).orders]


@router.put("/campaigns/{cid}/warbands/{wid}/position", response_model=PositionOut)
def place_warband(cid: PathId, wid: PathId, body: PositionIn, user: ApiUser, session: SessionDep):
    """The GM places a scattered warband, or corrects where one stands (the movement module, R9.8)."""
    warband = movement.place_warband(session, actor=user, campaign_id=cid, warband_id=wid, place_id=body.place_id)
    return PositionOut(warband_id=warband.id, name=warband.name, player_id=warband.player_id, place_id=warband.location_place_id)
