"""Shared API fixtures: a running campaign where anna has an Orc band and borys two Basileans."""

import pytest

from tests.builders.campaigns import running_campaign
from tests.builders.companies import ORC_BAND, buy


@pytest.fixture
def world(client):
    gm, cid, players, places = running_campaign(client, 2)
    anna, borys = players
    anna["models"] = buy(client, cid, anna, *ORC_BAND, faction="orcs")
    borys["models"] = buy(client, cid, borys, "basileans.veteran-sergeant", "basileans.man-at-arms", faction="basileans")
    return {"gm": gm, "cid": cid, "anna": anna, "borys": borys, "places": places}
