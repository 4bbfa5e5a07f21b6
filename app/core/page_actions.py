"""One way for a page form to act (issue 31): run the use case; on success leave a flash
message and answer 303 See Other to where the form said (post/redirect/get); on a refusal
roll back and draw the form's page again with the reason in the user's language and the
refusal's status — app/idempotency/refused.py then keeps that page and redirects to it, so a
refresh never posts again; a one-way or paid step not yet confirmed is only rehearsed, and
the confirm page asks (core/forms.confirm_page rolls the rehearsal back).

The CSRF token and the one-time `once` key are checked before a route runs, for every form
at once (accounts/deps.csrf_checked, idempotency/middleware.py); nothing here repeats them.
Domain-free: a domain's page context (campaigns/deps.py) adds who asks and the campaign."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from fastapi import Request
from fastapi.responses import Response
from sqlmodel import Session
from starlette.datastructures import FormData

from app.core import flash
from app.core.errors import DomainError
from app.core.forms import confirm_page, confirmed, field_refusal, refusal
from app.core.templating import request_gettext

R = TypeVar("R")


@dataclass(frozen=True)
class Ask:
    """The confirm step of a one-way or paid form, already in the user's words: its question,
    what it means, the button that confirms, and the way back (the page's address and tab)."""

    question: str
    detail: str
    button: str
    cancel: str
    tab: str
    danger: bool = False


@dataclass
class PageContext:
    """What a page form's handler works with: the request, its unit of work, the posted form
    (empty for a GET)."""

    request: Request
    session: Session
    form: FormData

    @property
    def gettext(self) -> Callable[[str], str]:
        return request_gettext(self.request)

    def say(self, texts: tuple[str, ...], **params: Any) -> tuple[str, ...]:
        """Message ids in the user's words, each filled with `params`."""
        gettext = self.gettext
        return tuple(gettext(text) % params for text in texts)

    def ask(self, texts: tuple[str, str, str], *, cancel: str, tab: str, danger: bool = False, **params: Any) -> Ask:
        """A confirm step from (question, detail, button) message ids."""
        question, detail, button = self.say(texts, **params)
        return Ask(question, detail, button, cancel, tab, danger)

    def layout(self) -> dict[str, Any]:
        """What the page around a confirm step needs (a campaign page: its viewer)."""
        return {}

    def confirm(self, ask: Ask, form: FormData | None = None) -> Response:
        """The confirm page without JavaScript: it re-posts the form (or `form`) with confirm=1
        to this address."""
        return confirm_page(
            self.request,
            self.session,
            self.form if form is None else form,
            question=ask.question,
            detail=ask.detail,
            button=ask.button,
            action=str(self.request.url.path),
            cancel=ask.cancel,
            danger=ask.danger,
            tab=ask.tab,
            **self.layout(),
        )

    def redirect(self, url: str, message: str, **params: Any) -> Response:
        """303 See Other to `url`, whose page then says `message` once."""
        return flash.redirect(self.request, url, message, **params)

    def refusal(self, exc: DomainError) -> str:
        return refusal(self.request, self.session, exc)


def page_action(
    page: PageContext,
    action: Callable[[], R],
    *,
    again: Callable[..., Response],
    done: Callable[[R], Response],
    ask: Callable[[R], Ask | None] | None = None,
    fields: Mapping[str, tuple[str, str]] | None = None,
    field: tuple[str, str] | None = None,
    passing: Collection[str] = (),
) -> Response:
    """Run `action()`, the form's use case, and answer the way every page form answers.

    Refused: the unit of work is rolled back and `again(status_code=<the refusal's status>,
    error=<its reason, in the user's words>)` draws the form's page again; a refusal that
    belongs to one field (`fields`: code -> (field, label); `field`: every refusal of a
    one-field form) is `errors={field: reason}` instead, named by the field's label; the codes
    in `passing` go on to the app's error page (a thing that is not there, or not for this
    viewer). Allowed: `ask(result)` is the confirm step, if any, which a form without
    confirm=1 gets instead (the action was a rehearsal); else `done(result)`, usually
    `page.redirect(...)`."""
    try:
        result = action()
    except DomainError as exc:
        if exc.code in passing:
            raise
        owner = (fields or {}).get(exc.code, field)
        if owner is not None:
            name, label = owner
            return again(status_code=exc.status, errors={name: field_refusal(page.request, page.session, exc, label)})
        return again(status_code=exc.status, error=page.refusal(exc))
    if ask is not None and not confirmed(page.form):
        question = ask(result)
        if question is not None:
            return page.confirm(question)
    return done(result)
