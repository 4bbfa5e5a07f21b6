"""R12.15 on the company page: a roster file in, what it buys and for how much asked once (it
spends gold), then a flash saying what was bought and what was not found.

The file is read and rehearsed on the first post (every refusal shows at once, on the company
page); the confirm step cannot carry a file, so it posts back what the file matched — the
faction and the profiles — and the purchase checks them again as the shop does."""

from __future__ import annotations

from collections import Counter
from functools import partial
from typing import Annotated

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

from app.campaigns.deps import CampaignContext, CampaignPage
from app.catalog.battlescribe.roster import MAX_BYTES, MAX_MODELS
from app.companies import roster_import
from app.companies.pages import LABELS as COMPANY_LABELS
from app.companies.pages import _company_page
from app.companies.roster_import import Imported
from app.core.errors import N_
from app.core.forms import Form, confirmed, typed, unplaced, validate
from app.core.page_actions import page_action
from app.core.templating import render

router = APIRouter()
MAX_FLASH_NAMES = 300  # characters of names a flash carries (it travels in a cookie)
BOUGHT = N_("Bought from the roster for %(gold)s gold: %(names)s.")
LABELS = {**COMPANY_LABELS, "unmatched": N_("Model")}
BOUGHT_SOME = N_("Bought from the roster for %(gold)s gold: %(names)s. Not in the catalog, so not bought: %(unmatched)s.")


class RosterConfirmForm(BaseModel):
    """What the confirm step posts back: the roster's faction and the profiles it matched."""

    faction: str = Field(max_length=120)
    profile: list[Annotated[str, Field(max_length=120)]] = Field(max_length=MAX_MODELS)
    unmatched: list[Annotated[str, Field(max_length=120)]] = Field(default=[], max_length=MAX_MODELS)


async def _roster_file(form: Form) -> bytes | None:
    upload = form.get("file")
    if upload is None or isinstance(upload, str) or not upload.filename:
        return None
    return await upload.read(MAX_BYTES + 1)


def _names(counts: Counter[str]) -> str:
    text = ", ".join(name if n == 1 else f"{name} ×{n}" for name, n in counts.items())
    return text if len(text) <= MAX_FLASH_NAMES else text[: MAX_FLASH_NAMES - 1] + "…"


def _done(page: CampaignContext, imported: Imported):
    names = _names(Counter(m.name for m in imported.bought))
    params = {"gold": imported.price, "names": names}
    if imported.unmatched:
        unmatched = _names(Counter(imported.unmatched))
        return page.redirect(f"/campaigns/{page.cid}/company", BOUGHT_SOME, unmatched=unmatched, **params)
    return page.redirect(f"/campaigns/{page.cid}/company", BOUGHT, **params)


def _confirm_step(page: CampaignContext, imported: Imported):
    """What the file buys, for how much, asked before any gold moves (the rehearsal is rolled
    back here; the button posts the matched profiles back with confirm=1)."""
    rows: dict[str, list] = {}
    for model in imported.bought:
        row = rows.setdefault(model.profile_key, [model.name, 0, model.price])
        row[1] += 1
    before = imported.gold + imported.price
    fields = [("faction", imported.faction)]
    fields += [("profile", m.profile_key) for m in imported.bought]
    fields += [("unmatched", name) for name in imported.unmatched]
    page.session.rollback()
    return render(
        page.request,
        "companies/roster_confirm.html",
        rows=list(rows.values()),
        price=imported.price,
        before=before,
        after=imported.gold,
        unmatched=imported.unmatched,
        fields=fields,
        faction=page.catalog.factions[imported.faction].name,
        tab="company",
        **page.layout(),
    )


@router.post("/campaigns/{cid}/company/import")
def import_roster(page: CampaignPage, data: Annotated[bytes | None, Depends(_roster_file)]):
    again = partial(_company_page, page)
    if confirmed(page.form):
        body, errors = validate(
            page.request, RosterConfirmForm, typed(page.form, "faction", lists=("profile", "unmatched")), LABELS
        )
        if errors:
            return _company_page(page, status_code=422, error=unplaced(errors))
        return page_action(
            page,
            lambda: roster_import.import_company(
                page.session,
                actor=page.user,
                campaign_id=page.cid,
                faction=body.faction,
                profile_keys=body.profile,
                unmatched=body.unmatched,
                catalog=page.catalog,
            ),
            again=again,
            done=partial(_done, page),
        )
    return page_action(
        page,
        lambda: roster_import.import_roster(
            page.session, actor=page.user, campaign_id=page.cid, data=data or b"", catalog=page.catalog
        ),
        again=again,
        done=partial(_confirm_step, page),
    )
