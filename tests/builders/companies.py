"""Companies (a faction and bought models) and the warbands built of them."""

from __future__ import annotations

from sqlmodel import Session

# Rosters of about the same points (46-49), so that no side of a battle is the underdog by much.
ORCS = ("orcs.krusher", "orcs.ax")  # 46 points, Evil
BASILEANS = ("basileans.veteran-sergeant", "basileans.man-at-arms", "basileans.man-at-arms")  # 46 points, Good
UNDEAD = ("undead.crypt-gouger", "undead.skeleton", "undead.skeleton", "undead.skeleton")  # 49 points
ORC_BAND = ("orcs.krusher", "orcs.ax", "orcs.ax", "orcs.ax")  # 34 + 3 × 12 = 70 points: room for a spellcaster mercenary


def buy(client, cid: int, player: dict, *profiles: str, faction: str | None = None) -> list[dict]:
    """Chooses `faction` (when given) and buys the profiles; returns the models."""
    if faction:
        r = client.put(f"/api/v1/campaigns/{cid}/company/faction", json={"faction": faction}, headers=player["headers"])
        assert r.status_code == 200, r.text
    models = []
    for key in profiles:
        r = client.post(f"/api/v1/campaigns/{cid}/company/models", json={"profile": key}, headers=player["headers"])
        assert r.status_code == 201, r.text
        models.append(r.json())
    return models


def warband(client, cid: int, player: dict, models: list[dict], name: str = "Raiders", mercenary: str | None = None) -> dict:
    body = {"name": name, "model_ids": [m["id"] for m in models]}
    if mercenary:
        body["mercenary"] = mercenary
    r = client.post(f"/api/v1/campaigns/{cid}/warbands", json=body, headers=player["headers"])
    assert r.status_code == 201, r.text
    return r.json()


def set_status(engine, statuses: dict[int, str]) -> None:
    """Setup: company models dead, captured or resting (as a settlement leaves them)."""
    from app.companies.models import CompanyModel

    with Session(engine) as s:
        for model_id, status in statuses.items():
            model = s.get(CompanyModel, model_id)
            model.status = status
            s.add(model)
        s.commit()
