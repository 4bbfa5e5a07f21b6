"""R12.15 on the company page: a roster file in, what it buys and for how much asked once (it
spends gold), then a flash saying what was bought and what was not.

The file is read and rehearsed on the first post (every refusal shows at once, on the company
page); the confirm step cannot carry a file, so it posts back what the file matched — the
faction, the profiles, the items with the model each goes to ("<model's index>:<item key>",
no index for the stash) and what was not bought — and the purchase checks them again as the
shop does."""

from __future__ import annotations

from collections import Counter
from functools import partial
from typing import Annotated

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

from app.campaigns.deps import CampaignContext, CampaignPage
from app.catalog.battlescribe.roster import MAX_BYTES, MAX_EACH, MAX_MODELS
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
LABELS = {**COMPANY_LABELS, "unmatched": N_("Model"), "item": N_("Item")}
BOUGHT_SOME = N_("Bought from the roster for %(gold)s gold: %(names)s. Not in the catalog, so not bought: %(unmatched)s.")
# Unique items (rewards only, R3.7) and items past what a model carries (V8)
BOUGHT_REFUSED = N_(
    "Bought from the roster for %(gold)s gold: %(names)s. Not for sale or more than the model carries, so not bought: %(refused)s."
)
BOUGHT_BOTH = N_(
    "Bought from the roster for %(gold)s gold: %(names)s. Not in the catalog, so not bought: %(unmatched)s."
    " Not for sale or more than the model carries, so not bought: %(refused)s."
)
MAX_ITEMS = MAX_EACH * MAX_MODELS


class RosterConfirmForm(BaseModel):
    """What the confirm step posts back: the roster's faction and the profiles it matched."""

    faction: str = Field(max_length=120)
    profile: list[Annotated[str, Field(max_length=120)]] = Field(max_length=MAX_MODELS)
    item: list[Annotated[str, Field(max_length=130, pattern=r"^\d{0,3}:[a-z0-9._-]{1,120}$")]] = Field(
        default=[], max_length=MAX_ITEMS
    )
    unmatched: list[Annotated[str, Field(max_length=250)]] = Field(default=[], max_length=MAX_MODELS + MAX_ITEMS)
    refused: list[Annotated[str, Field(max_length=250)]] = Field(default=[], max_length=MAX_ITEMS)

    def planned(self) -> list[tuple[int | None, str]]:
        """The items by the model each goes to (its index is checked against the profiles by roster_import)."""
        return [(int(model) if model else None, key) for model, key in (i.split(":", 1) for i in self.item)]


async def _roster_file(form: Form) -> bytes | None:
    upload = form.get("file")
    if upload is None or isinstance(upload, str) or not upload.filename:
        return None
    return await upload.read(MAX_BYTES + 1)


def _names(counts: Counter[str]) -> str:
    text = ", ".join(name if n == 1 else f"{name} ×{n}" for name, n in counts.items())
    return text if len(text) <= MAX_FLASH_NAMES else text[: MAX_FLASH_NAMES - 1] + "…"


def _done(page: CampaignContext, imported: Imported):
    names = _names(Counter([m.name for m in imported.bought] + [i.name for i in imported.items]))
    params = {"gold": imported.price, "names": names}
    unmatched, refused = _names(Counter(imported.unmatched)), _names(Counter(imported.refused))
    message = {
        (False, False): BOUGHT,
        (True, False): BOUGHT_SOME,
        (False, True): BOUGHT_REFUSED,
        (True, True): BOUGHT_BOTH,
    }[(bool(imported.unmatched), bool(imported.refused))]
    return page.redirect(f"/campaigns/{page.cid}/company", message, unmatched=unmatched, refused=refused, **params)


def _confirm_step(page: CampaignContext, imported: Imported):
    """What the file buys, for how much, asked before any gold moves (the rehearsal is rolled
    back here; the button posts the matched profiles back with confirm=1)."""
    rows: dict[str, list] = {}
    for key, name, price in [(m.profile_key, m.name, m.price) for m in imported.bought] + [
        (i.item_key, i.name, i.price) for i in imported.items
    ]:
        row = rows.setdefault(key, [name, 0, price])
        row[1] += 1
    before = imported.gold + imported.price
    index = {m.id: n for n, m in enumerate(imported.bought)}
    fields = [("faction", imported.faction)]
    fields += [("profile", m.profile_key) for m in imported.bought]
    fields += [("item", f"{index.get(i.model_id, '')}:{i.item_key}") for i in imported.items]
    fields += [("unmatched", name) for name in imported.unmatched]
    fields += [("refused", name) for name in imported.refused]
    page.session.rollback()
    return render(
        page.request,
        "companies/roster_confirm.html",
        rows=list(rows.values()),
        price=imported.price,
        before=before,
        after=imported.gold,
        unmatched=imported.unmatched,
        refused=imported.refused,
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
            page.request,
            RosterConfirmForm,
            typed(page.form, "faction", lists=("profile", "item", "unmatched", "refused")),
            LABELS,
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
                item_keys=body.planned(),
                unmatched=body.unmatched,
                refused=body.refused,
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
