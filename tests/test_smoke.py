"""Published MDAV values (../shared/DESIGN.md, seed 004 Table 5)."""

import pytest

from mipagg.heuristics.mdav import mdav

PUBLISHED = {
    "census": {3: 5.6922, 4: 7.4947, 5: 9.0884, 10: 14.1559},
    "tarragona": {3: 16.9326, 4: 19.5460, 5: 22.4619, 10: 33.1929},
}


@pytest.mark.parametrize("name", ["census", "tarragona"])
@pytest.mark.parametrize("k", [3, 4, 5, 10])
def test_mdav_published_il(name, k, request):
    inst = request.getfixturevalue(name)
    p = mdav(inst.X, k)
    assert p.is_feasible(k)
    assert round(p.il(), 4) == PUBLISHED[name][k]
