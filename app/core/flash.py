"""One-time messages after a form post (post/redirect/get).

A successful page form answers 303 See Other and leaves a short message in a signed cookie;
the next full page shown by a GET renders it once (templates/base.html) and the response
clears the cookie. The cookie holds the English message id and its raw parameters, not the
text, so the message is translated when it is read, in the reader's language (which may
have changed in between, as after the language switch itself).
"""

from __future__ import annotations

import base64
import hmac
import json
from typing import Any

from fastapi import Request
from fastapi.responses import RedirectResponse, Response

from app.core.errors import Msg
from app.core.security import token_digest

FLASH_COOKIE = "hideout_flash"
MAX_AGE = 300  # seconds: the redirect is followed at once; a stale message is dropped


def _sign(secret: str, payload: str) -> str:
    return token_digest(secret, "flash:" + payload)


def _encode(secret: str, data: dict[str, Any]) -> str:
    payload = base64.urlsafe_b64encode(json.dumps(data, separators=(",", ":")).encode()).decode().rstrip("=")
    return f"{payload}.{_sign(secret, payload)}"


def _decode(secret: str, value: str | None) -> dict[str, Any] | None:
    if not value or "." not in value:
        return None
    payload, signature = value.rsplit(".", 1)
    if not hmac.compare_digest(_sign(secret, payload), signature):
        return None
    try:
        data = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except ValueError:
        return None
    return data if isinstance(data, dict) and isinstance(data.get("m"), str) else None


def set_flash(request: Request, response: Response, message: str, *, code: str | None = None, **params: Any) -> Response:
    """Leave `message` (an N_() message id with %(name)s parameters) for the next page.
    Parameters that are `Msg` are message ids themselves (a phase name) and are translated
    too; `code` is shown verbatim in <code> (a new API token, shown once)."""
    data: dict[str, Any] = {"m": message, "p": dict(params)}
    translate = [k for k, v in params.items() if isinstance(v, Msg)]
    if translate:
        data["t"] = translate
    if code is not None:
        data["c"] = code
    settings = request.app.state.settings
    response.set_cookie(
        FLASH_COOKIE,
        _encode(request.app.state.secret_key, data),
        max_age=MAX_AGE,
        httponly=True,
        samesite="lax",
        secure=settings.secure_cookies,
    )
    request.state.flash_set = True
    return response


def redirect(request: Request, url: str, message: str, **kwargs: Any) -> Response:
    """303 See Other to a GET page with a flash message. An htmx request gets 204 with
    HX-Redirect instead (htmx does not follow a 303 to a full page usefully)."""
    if request.headers.get("hx-request"):
        response: Response = Response(status_code=204, headers={"HX-Redirect": url})
    else:
        response = RedirectResponse(url, status_code=303)
    return set_flash(request, response, message, **kwargs)


def take(request: Request, translations) -> dict[str, str] | None:
    """The pending message, translated, for a full page shown by a GET; marks it shown so
    the response clears the cookie. Returns {"text": ..., "code": ...} or None."""
    if request.method != "GET":
        return None
    data = _decode(request.app.state.secret_key, request.cookies.get(FLASH_COOKIE))
    request.state.flash_taken = FLASH_COOKIE in request.cookies
    if data is None:
        return None
    params = dict(data.get("p") or {})
    for key in data.get("t") or ():
        if isinstance(params.get(key), str):
            params[key] = translations.gettext(params[key])
    template = translations.gettext(data["m"])
    try:
        text = template % params if params else template
    except (KeyError, TypeError, ValueError):
        text = template
    return {"text": text, "code": data.get("c")}


def clear_if_taken(request: Request, response: Response) -> None:
    """Called for every response: drop the cookie once its message has been shown."""
    if getattr(request.state, "flash_taken", False) and not getattr(request.state, "flash_set", False):
        response.delete_cookie(FLASH_COOKIE)
