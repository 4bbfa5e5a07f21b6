"""The settlement page: one phone page with the six steps, every number pre-filled from the
battle, shortcuts for the common case; and the ransoms page. Forms post the whole page and
come back with post/redirect/get; a small script (static/settlement.js) keeps the numbers
live without a round trip, and everything works without it."""

from __future__ import annotations

from functools import partial

from fastapi import APIRouter

from app.campaigns import house_rules
from app.campaigns.deps import CampaignContext, CampaignPage
from app.core.errors import N_, DomainError, Msg
from app.core.forms import blank_to_none, typed, unplaced, validate
from app.core.page_actions import page_action
from app.core.templating import render
from app.core.types import PathId
from app.maps import service as maps
from app.settlement import rules, service
from app.settlement.schemas import RansomOfferIn, RollIn, SettlementIn

router = APIRouter()
PAGE = "/campaigns/{cid}/battles/{bid}/settlements/{wid}"
CONFIRM_CLOSE = (
    N_("Close the settlement?"),
    N_("Injuries, experience, promotions, equipment and the retinue are applied now; only the game master can reopen it."),
    N_("Close the settlement"),
)


def _url(cid: int, bid: int, wid: int) -> str:
    return f"/campaigns/{cid}/battles/{bid}/settlements/{wid}"


def _page(page: CampaignContext, bid: int, wid: int, status_code=200, shown: dict | None = None, **extra):
    session, cid = page.session, page.cid
    sv = service.get(session, actor=page.user, campaign_id=cid, battle_id=bid, warband_id=wid)
    steps = {**sv.steps, **(shown or {})}
    names = service.nicknames(session, cid)
    settings = sv.ctx.settings
    gone = {i["model_id"] for i in steps["injuries"] if i["result"] in rules.GONE}
    return render(
        page.request,
        "settlement/settlement.html",
        status_code=status_code,
        viewer=sv.viewer,
        campaign=sv.viewer.campaign,
        sv=sv,
        steps=steps,
        names=names,
        labels=maps.labels(session, cid),
        settings=settings,
        taken_out=set(steps["course"].get("taken_out") or []),
        objectives=set(steps["course"].get("objectives") or []),
        took_out={int(k): v for k, v in (steps["course"].get("took_out") or {}).items()},
        injuries={i["model_id"]: i for i in steps["injuries"]},
        rolled={m: r[-1] for m, r in sv.rolls.items() if r},
        xp={e["model_id"]: e["xp"] for e in steps["experience"]},
        promotions={(p["model_id"], p["rank"]): p["upgrade"] for p in steps["promotions"]},
        equipment={e["item_id"]: e for e in steps["equipment"]},
        gone=gone,
        ranks=settings["ranks"],
        part_on=all(e["xp"] >= steps["proposal"].get(e["model_id"], 0) for e in steps["experience"]),
        default_leader=steps["retinue"]["leader_id"]
        or next((m.model_id for m in sv.ctx.members if "Command" in m.types and m.model_id not in gone), None),
        RESULTS=house_rules.RESULTS,
        RESULT_NAMES=house_rules.RESULT_NAMES,
        OUTCOME_NAMES=rules.RESULT_NAMES,
        STEP_NAMES=rules.STEP_NAMES,
        tab="battles",
        **extra,
    )


@router.get(PAGE)
def settlement(bid: PathId, wid: PathId, page: CampaignPage):
    return _page(page, bid, wid)


def _posted(form, sv: service.SettlementView) -> dict:
    """The page's fields as the API's six steps, still as text: the form's names come from the
    models and items the server knows, so nothing is parsed here (SettlementIn does that)."""
    members = sv.ctx.member_ids

    def text(name: str) -> str | None:
        value = form.get(name)
        return value if isinstance(value, str) and value.strip() else None

    rolled = {m: r[-1]["result"] for m, r in sv.rolls.items() if r}
    injuries = []
    for m in members:
        # A rolled result has no select on the page, but its text or captor still comes from it.
        result = rolled.get(m) or text(f"injury_{m}")
        if result:
            entry = {"model_id": m, "result": result}
            entry.update({k: v for k, v in (("text", text(f"text_{m}")), ("captor_player_id", text(f"captor_{m}"))) if v})
            entry["items_lost"] = form.get(f"itemslost_{m}") == "on"
            injuries.append(entry)
    raw = {
        "course": {
            "taken_out": [v for v in form.getlist("out") if isinstance(v, str)],
            "objectives": [v for v in form.getlist("obj") if isinstance(v, str)],
            "took_out": {str(m): text(f"took_{m}") for m in members if text(f"took_{m}")},
        },
        "injuries": injuries,
        "experience": [{"model_id": m, "xp": form.get(f"xp_{m}")} for m in members if f"xp_{m}" in form],
        "equipment": [
            {"item_id": i.item_id, "model_id": text(f"item_{i.item_id}"), "lost": form.get(f"itemlost_{i.item_id}") == "on"}
            for i in sv.ctx.items
            if f"item_{i.item_id}" in form
        ],
        "promotions": [
            {"model_id": m, "rank": rank, "upgrade": text(f"promo_{m}_{rank}").strip()}
            for m in members
            for rank in range(1, len(sv.ctx.settings["ranks"]) + 1)
            if text(f"promo_{m}_{rank}")
        ],
    }
    if form.get("retinue_form") == "1":
        raw["retinue"] = {"leader_id": text("leader"), "retinue_ids": [v for v in form.getlist("retinue") if isinstance(v, str)]}
    return raw


def parse(form, body: SettlementIn, sv: service.SettlementView) -> dict:
    """The checked steps as this warband's settlement: only its own models, a rolled model
    stays taken out, the page's shortcuts applied."""
    members = sv.ctx.member_ids
    rolled = {m: r[-1] for m, r in sv.rolls.items() if r}
    taken_out = [m for m in body.course.taken_out if m in members]
    # A model with a rolled result stays taken out (its checkbox is locked on the page).
    taken_out += [m for m in rolled if m not in taken_out]
    course = {
        "taken_out": taken_out,
        "objectives": [m for m in body.course.objectives if m in members],
        "took_out": {k: v for k, v in body.course.took_out.items() if v},
    }
    posted = {i.model_id: i for i in body.injuries}
    injuries = []
    for m in taken_out:
        given = posted.get(m)
        result = rolled[m]["result"] if m in rolled else (given.result if given else None)
        if result is None:
            continue
        entry: dict = {"model_id": m, "result": result}
        if result == "permanent":
            entry["text"] = (given.text if given else "") or ""
        if result == "captured" and given and given.captor_player_id:
            entry["captor_player_id"] = given.captor_player_id
        if result == "dead":
            entry["items_lost"] = bool(given and given.items_lost)
        injuries.append(entry)
    gone = {i["model_id"] for i in injuries if i["result"] in rules.GONE}
    experience = [{"model_id": e.model_id, "xp": e.xp} for e in body.experience]
    if form.get("action") == "part_toggle":
        # The shortcut's award for taking part, on (the pre-filled default) or off for everyone.
        part = sv.ctx.settings["xp"]["taking_part"] * (-1 if form.get("part_award") == "1" else 1)
        experience = [{"model_id": e["model_id"], "xp": max(0, e["xp"] + part)} for e in experience]
    carried = {i.item_id: i for i in sv.ctx.items}
    equipment = [
        {
            "item_id": e.item_id,
            "model_id": None if (e.lost and carried[e.item_id].model_id in gone) or e.model_id in gone else e.model_id,
            "lost": e.lost and carried[e.item_id].model_id in gone,
        }
        for e in body.equipment
        if e.item_id in carried
    ]
    promotions = [p.model_dump() for p in body.promotions]
    changes = {"course": course, "injuries": injuries, "experience": experience, "equipment": equipment, "promotions": promotions}
    if body.retinue is not None:
        changes["retinue"] = {"leader_id": body.retinue.leader_id, "retinue_ids": body.retinue.retinue_ids}
    if form.get("action") == "survived":
        changes["course"] = {**course, "taken_out": [m for m in course["taken_out"] if m in rolled]}
        changes["injuries"] = [i for i in injuries if i["model_id"] in rolled]
    return changes


@router.post(PAGE)
def save(bid: PathId, wid: PathId, page: CampaignPage):
    """Save the draft; or roll, re-roll, "everyone survived", "+1 XP to all who took part", close."""
    request, session, user, form, cid = page.request, page.session, page.user, page.form, page.cid
    action = form.get("action") if isinstance(form.get("action"), str) else "save"
    sv = service.get(session, actor=user, campaign_id=cid, battle_id=bid, warband_id=wid)
    body, errors = validate(request, SettlementIn, _posted(form, sv))
    if body is None:
        return _page(page, bid, wid, status_code=422, error=unplaced(errors))
    changes = parse(form, body, sv)
    url = _url(cid, bid, wid)

    def act():
        """The draft saved, then the button's own step; a roll gives (model id, its name, the roll)."""
        service.save(session, actor=user, campaign_id=cid, battle_id=bid, warband_id=wid, changes=changes)
        if action.startswith(("roll:", "reroll:")):
            kind, _sep, model = action.partition(":")
            roll, _roll_errors = validate(request, RollIn, {"model_id": model})
            if roll is None:
                raise DomainError("not_found")
            model_id = roll.model_id
            service.roll(
                session, actor=user, campaign_id=cid, battle_id=bid, warband_id=wid, model_id=model_id, reroll=kind == "reroll"
            )
            rolled = service.get(session, actor=user, campaign_id=cid, battle_id=bid, warband_id=wid)
            return model_id, rolled.models[model_id].name, rolled.rolls[model_id][-1]
        if action == "close":
            service.close(session, actor=user, campaign_id=cid, battle_id=bid, warband_id=wid)
        return None

    def done(rolled):
        if rolled is not None:
            model_id, name, roll = rolled
            return page.redirect(
                f"{url}#m-{model_id}",
                N_("%(model)s: %(face)s on the die — %(result)s."),
                model=name,
                face=roll["face"],
                result=Msg(house_rules.RESULT_NAMES[roll["result"]]),
            )
        if action == "close":
            return page.redirect(url, N_("The settlement is closed."))
        anchor = {"survived": "#course", "part_toggle": "#experience"}.get(action, "")
        return page.redirect(url + anchor, N_("Saved."))

    return page_action(
        page,
        act,
        again=partial(_page, page, bid, wid, shown=_shown(changes)),
        ask=lambda _rolled: page.ask(CONFIRM_CLOSE, cancel=url, tab="battles") if action == "close" else None,
        done=done,
    )


def _shown(changes: dict) -> dict:
    """What the refused form said, to show it again rather than lose the player's taps."""
    shown = dict(changes)
    shown["course"] = {**changes["course"], "result": None}
    return shown


@router.post(PAGE + "/reopen")
def reopen(bid: PathId, wid: PathId, page: CampaignPage):
    return page_action(
        page,
        lambda: service.reopen(page.session, actor=page.user, campaign_id=page.cid, battle_id=bid, warband_id=wid),
        again=partial(_page, page, bid, wid),
        done=lambda _settlement: page.redirect(
            _url(page.cid, bid, wid), N_("The settlement is reopened; the player can revise and close it again.")
        ),
    )


# --- ransoms ------------------------------------------------------------------------------------


def _ransoms_page(page: CampaignContext, status_code=200, **extra):
    viewer, found, models = service.ransoms(page.session, actor=page.user, campaign_id=page.cid)
    return render(
        page.request,
        "settlement/ransoms.html",
        status_code=status_code,
        viewer=viewer,
        campaign=viewer.campaign,
        ransoms=found,
        models=models,
        names=service.nicknames(page.session, page.cid),
        tab="overview",
        **extra,
    )


@router.get("/campaigns/{cid}/ransoms")
def ransoms(page: CampaignPage):
    return _ransoms_page(page)


RANSOM_SAID = {
    "offer": N_("The ransom is named: %(price)s gold."),
    "pay": N_("Ransom paid: %(price)s gold; the model is back."),
    "refuse": N_("Ransom refused: the model is lost."),
}


@router.post("/campaigns/{cid}/ransoms/{rid}/{decision}")
def decide(rid: PathId, decision: str, page: CampaignPage):
    session, user, cid = page.session, page.user, page.cid
    price = None
    if decision == "offer":
        offer, offer_errors = validate(
            page.request, RansomOfferIn, blank_to_none(typed(page.form, "price")), {"price": N_("Price")}
        )
        if offer is None:
            return _ransoms_page(page, status_code=422, error=unplaced(offer_errors))
        price = offer.price

    def act() -> int:
        """The ransom's price, as named or as paid."""
        if decision == "offer":
            service.offer(session, actor=user, campaign_id=cid, ransom_id=rid, price=price)
            return price
        if decision in ("pay", "refuse"):
            return service.answer(session, actor=user, campaign_id=cid, ransom_id=rid, pay=decision == "pay").price
        raise DomainError("not_found")

    return page_action(
        page,
        act,
        again=partial(_ransoms_page, page),
        done=lambda price: page.redirect(f"/campaigns/{cid}/ransoms", RANSOM_SAID[decision], price=price),
    )
