"""NUL characters never reach the database: PostgreSQL refuses them in text (a 500 before
this check), SQLite would store them. Every request's query, JSON body and form fields are
checked once, before any route runs (R11.5)."""

from __future__ import annotations

from fastapi import Request

from app.core.errors import DomainError


async def reject_nul(request: Request) -> None:
    # Read off the scope, not off `request.url` (a URL parsed for each request, issue 37): the
    # raw query string, from which the query's parameters are parsed (the URL's `query` stopped
    # at a `#`, the parameters do not), and the decoded path.
    scope = request.scope
    if b"%00" in scope.get("query_string", b"") or "\x00" in scope["path"]:
        raise DomainError("text_nul")
    content_type = request.headers.get("content-type", "")
    if request.method in ("GET", "HEAD", "OPTIONS", "DELETE") and not request.headers.get("content-length"):
        return
    if content_type.startswith("multipart/form-data"):
        form = await request.form()
        if any(isinstance(v, str) and "\x00" in v for v in form.values()):
            raise DomainError("text_nul")
        return
    body = await request.body()
    urlencoded = content_type.startswith("application/x-www-form-urlencoded")
    if b"\x00" in body or b"\\u0000" in body or (urlencoded and b"%00" in body):
        raise DomainError("text_nul")
