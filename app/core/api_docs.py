"""/api/docs (issue 30): a light page by default, Swagger UI on demand.

The page the server draws is a reference read from the app's own OpenAPI document: every
operation by tag, with its method, path, summary and operationId. Swagger UI (1.9 MB of script
and style from static/vendor/swagger-ui) is fetched only when the reader asks for the console,
by static/swagger-init.js, on the same URL: `?try=1`, `#try` or a Swagger deep link
(`#/<tag>/<operationId>`) opens it at once."""

from __future__ import annotations

from dataclasses import dataclass

from fastapi import FastAPI
from fastapi.responses import HTMLResponse

from app.core.templating import env

METHODS = ("get", "put", "post", "patch", "delete")


@dataclass(frozen=True)
class Operation:
    method: str
    path: str
    summary: str
    operation_id: str
    tag: str
    deprecated: bool


@dataclass(frozen=True)
class Group:
    tag: str
    operations: tuple[Operation, ...]


def operations(document: dict) -> list[Group]:
    """Tags in the order their first route is declared (the document's `tags` list if it has
    one), operations in path order within a tag, as Swagger UI shows them."""
    by_tag: dict[str, list[Operation]] = {tag["name"]: [] for tag in document.get("tags", [])}
    for path, item in document.get("paths", {}).items():
        for method in METHODS:
            op = item.get(method)
            if op is None:
                continue
            tag = (op.get("tags") or ["default"])[0]
            by_tag.setdefault(tag, []).append(
                Operation(
                    method=method.upper(),
                    path=path,
                    summary=op.get("summary", ""),
                    operation_id=op.get("operationId", ""),
                    tag=tag,
                    deprecated=bool(op.get("deprecated")),
                )
            )
    return [Group(tag, tuple(ops)) for tag, ops in by_tag.items() if ops]


def page(app: FastAPI) -> HTMLResponse:
    document = app.openapi()
    groups = operations(document)
    html = env.get_template("api/docs.html").render(
        title=f"{app.title} · docs",
        api_title=document["info"]["title"],
        version=document["info"]["version"],
        openapi_url=app.openapi_url,
        groups=groups,
        count=sum(len(g.operations) for g in groups),
    )
    return HTMLResponse(html)
