"""Issue 30: the API contract lives in the project (docs/api.md) and stays in step with the
routes served: every route of its Routes table is in the OpenAPI document, and every operation
of the document is in the table. The README and the OpenAPI description point to it."""

from __future__ import annotations

import re
from pathlib import Path

from app.main import API_PREFIX

REPO = Path(__file__).resolve().parents[2]
CONTRACT = REPO / "docs" / "api.md"
PLACEHOLDER = re.compile(r"\{[^}]*\}")


def table_routes(text: str) -> set[tuple[str, str]]:
    """(method, path) of each row of the Routes table (not the Planned one). A cell may list
    methods ("GET, POST") and paths, where "/decline" after ".../accept" is a sibling path."""
    table = text.split("\n## Routes", 1)[1].split("\n## ", 1)[0].split("\n### Planned", 1)[0]
    routes = set()
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 3 or not cells[1].startswith("/"):
            continue
        first, *siblings = [p.strip() for p in cells[1].split(",")]
        paths = [first] + [first.rsplit("/", 1)[0] + s if s.count("/") == 1 else s for s in siblings]
        routes |= {(m.strip(), PLACEHOLDER.sub("{}", p)) for m in cells[0].split(",") for p in paths}
    return routes


def served(app) -> set[tuple[str, str]]:
    return {
        (method.upper(), PLACEHOLDER.sub("{}", path.removeprefix(API_PREFIX)))
        for path, operations in app.openapi()["paths"].items()
        for method in operations
    }


def test_every_route_of_the_contract_is_served_and_every_served_route_is_in_it(app):
    documented, routes = table_routes(CONTRACT.read_text()), served(app)
    assert not documented - routes, f"in docs/api.md but not served: {sorted(documented - routes)}"
    assert not routes - documented, f"served but not in docs/api.md's Routes table: {sorted(routes - documented)}"


def test_the_parser_reads_sibling_paths_and_method_lists():
    text = (
        "\n## Routes\n\n| method | path | who | what |\n|---|---|---|---|\n"
        "| GET, POST | /a/{x}/b | GM | z |\n| POST | /a/{x}/b/accept, /decline | p | q |\n"
        "\n### Planned\n\n| POST | /later | GM | soon |\n\n## Shapes\n"
    )
    assert table_routes(text) == {
        ("GET", "/a/{}/b"),
        ("POST", "/a/{}/b"),
        ("POST", "/a/{}/b/accept"),
        ("POST", "/a/{}/b/decline"),
    }


def test_the_readme_and_the_openapi_document_point_to_the_contract(app):
    assert "docs/api.md" in (REPO / "README.md").read_text()
    assert "docs/api.md" in app.openapi()["info"]["description"]
