"""Issue 31 item 2: the layer order of app/ is checked (tools/layers.py, run by `lint-imports`
with the contracts of pyproject.toml). The rule itself, on made-up imports, and the real tree."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tools.layers import EDGES, ranks_of, violations

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ["main wiring", "season", "rounds", "season.service", "battles", "maps", "core"]


def check(*pairs: tuple[str, str]) -> list[str]:
    return violations(list(pairs), ranks_of(LAYERS), EDGES)


def test_issue31_a_lower_domains_service_importing_a_higher_one_is_refused():
    assert check(("app.maps.service", "app.battles.service")) == [
        "app.maps.service -> app.battles.service: maps is below battles"
    ]
    assert check(("app.battles.service", "app.maps.service")) == []  # downwards is the way


def test_issue31_a_package_may_straddle_layers_by_module():
    # The season's deadline sits below the round; the rest of the season above it.
    assert check(("app.rounds.steps", "app.season.service")) == []
    assert check(("app.rounds.steps", "app.season.scheduler")) != []


def test_issue31_services_never_import_edges_and_edges_may_use_any_service():
    assert check(("app.battles.service", "app.maps.pages")) == [
        "app.battles.service -> app.maps.pages: a service imports a page or an API"
    ]
    # Pages, APIs and the composition root sit above every service (the dashboard, the map page).
    assert check(("app.maps.map_pages", "app.rounds.service"), ("app.wiring", "app.battles.pages")) == []


def test_issue31_models_and_rules_are_shared_by_every_layer():
    assert check(("app.maps.service", "app.battles.models"), ("app.core.x", "app.rounds.rules")) == []


def test_issue31_the_tree_keeps_every_contract_of_pyproject():
    done = subprocess.run(
        [str(Path(sys.executable).parent / "lint-imports")], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "0 broken" in done.stdout
