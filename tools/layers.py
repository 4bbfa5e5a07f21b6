"""The layer order of app/ (ARCHITECTURE.md, issue 31), checked as an import-linter contract
type (`layers.DomainLayers`, declared in pyproject.toml) so that `lint-imports` in CI refuses
a lower domain importing a higher one.

Two tiers. The service tier is every domain's use cases, layered: a domain is a package of
app/ (or a module of one, where a package straddles layers: the season's deadline sits below
the round, its scheduler above), and a domain's services import only their own and lower
domains' services. Above the whole service tier sit the edges: each domain's pages, API, page
context (deps) and commands, the composite pages (the dashboard, the map page, which show many
domains at once), and the composition roots (main, wiring, cli). An edge may use any service
and any other edge; a service never imports an edge. Shared modules (models, rules, schemas,
terms) are data and pure functions that anyone may import; they import no service or edge
(a forbidden contract in pyproject.toml)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from importlinter import Contract, ContractCheck, fields, output

SHARED = ("models", "rules", "schemas", "terms", "names", "types", "house_rules")
EDGES = ("pages", "api", "cli", "deps", "*_pages", "*_view")
ROOTS = ("main", "wiring", "cli", "asgi", "demo", "openapi")


@dataclass(frozen=True)
class Place:
    domain: str
    rank: int
    edge: bool
    shared: bool


def domain_of(module: str, ranks: dict[str, int]) -> str | None:
    parts = module.split(".")
    for n in range(len(parts), 1, -1):
        prefix = ".".join(parts[1:n])
        if prefix in ranks:
            return prefix
    return None


def place_of(module: str, ranks: dict[str, int], edges: tuple[str, ...]) -> Place | None:
    domain = domain_of(module, ranks)
    if domain is None:
        return None
    last = module.rsplit(".", 1)[-1]
    edge = domain in ROOTS or last in edges or any(last.endswith(e.lstrip("*")) for e in edges if e.startswith("*"))
    return Place(domain, ranks[domain], edge, last in SHARED)


def violations(imports, ranks: dict[str, int], edges: tuple[str, ...]) -> list[str]:
    """`imports`: (importer, imported) pairs of app modules. A lower domain importing a higher
    one, or a service importing an edge, is a violation."""
    found = []
    for importer, imported in imports:
        a, b = place_of(importer, ranks, edges), place_of(imported, ranks, edges)
        if a is None or b is None or a.edge or b.shared or a.domain == b.domain:
            continue
        if b.edge:
            found.append(f"{importer} -> {imported}: a service imports a page or an API")
        elif b.rank > a.rank:
            found.append(f"{importer} -> {imported}: {a.domain} is below {b.domain}")
    return sorted(found)


def ranks_of(layers: list[str]) -> dict[str, int]:
    """Layers listed highest first, as import-linter's own layers contract lists them."""
    return {name: rank for rank, line in enumerate(reversed(layers)) for name in line.split()}


def import_pairs(graph) -> list[tuple[str, str]]:
    return [(m, i) for m in graph.modules for i in graph.find_modules_directly_imported_by(m) if i.startswith("app.")]


class DomainLayers(Contract):
    """`type = "domain_layers"`: `layers` from highest to lowest, each a space-separated list
    of domains of equal rank (a domain may be a package's module, e.g. season.service)."""

    type_name = "domain_layers"
    layers = fields.ListField(subfield=fields.StringField())

    def check(self, graph, verbose: bool) -> ContractCheck:
        # import-linter sets each field to its parsed value (here a list of lines) on the instance.
        layers = cast("list[str]", self.layers)
        found = violations(import_pairs(graph), ranks_of(list(layers)), EDGES)
        return ContractCheck(kept=not found, metadata={"violations": found})

    def render_broken_contract(self, check: ContractCheck) -> None:
        for line in check.metadata["violations"]:
            output.print_error(line)
            output.new_line()


if __name__ == "__main__":
    raise SystemExit("run `lint-imports` (the contracts are in pyproject.toml)")
