"""A campaign's cover image on the wizard's forms: the upload, stored at once so that a
refusal of another field keeps it (issue 29), and the one such a refusal kept."""

from __future__ import annotations

import re
from typing import Annotated

from fastapi import Depends, Request

from app.campaigns.wizard import FIELD_LABELS
from app.core.errors import DomainError
from app.core.forms import Form, field_refusal
from app.core.images import store_image


def media_dir(request: Request):
    return request.app.state.settings.var_dir / "media"


async def _cover(form: Form) -> bytes | None:
    upload = form.get("cover")
    if upload is None or isinstance(upload, str) or not upload.filename:
        return None
    return await upload.read()


Cover = Annotated[bytes | None, Depends(_cover)]
# A web copy's name as store_image gives it: nothing else is taken from the hidden field.
KEPT_COVER = re.compile(r"[0-9a-f]{24}\.web\.(png|jpg|webp)")


def _chosen_cover(request: Request, form, data: bytes | None) -> str | None:
    """The cover's stored web copy: a new upload is stored at once; else the one a refusal
    kept (`cover_kept`)."""
    if data is not None:
        return store_image(data, media_dir(request)).web
    kept = form.get("cover_kept")
    if isinstance(kept, str) and KEPT_COVER.fullmatch(kept) and (media_dir(request) / kept).is_file():
        return kept
    return None


def cover_step(request: Request, session, form, data: bytes | None, errors: dict) -> tuple[str | None, dict]:
    """The chosen cover and the step's errors with the cover's own refusal added (an image
    that is not one, too big: said next to the cover's field)."""
    try:
        return _chosen_cover(request, form, data), errors
    except DomainError as exc:
        return None, {**errors, "cover": field_refusal(request, session, exc, FIELD_LABELS["cover"])}
