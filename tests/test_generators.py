"""Simulated instances of seed 004 section 5 and the shipped instance files."""

from pathlib import Path

import numpy as np
import pytest

from mipagg.errors import ParameterError
from mipagg.generators import lognormal, normal_small, simc, simu
from mipagg.instance import read_csv

INSTANCES = Path(__file__).resolve().parent.parent / "instances"


def test_simu():
    inst = simu(1000, 10, seed=2)
    assert inst.raw.shape == (1000, 10)
    assert inst.raw.min() >= -10_000 and inst.raw.max() <= 10_000
    assert inst.raw.min() < -9_900 and inst.raw.max() > 9_900
    assert inst.provenance == {"source": "array", "generator": "simu", "n": 1000, "p": 10,
                               "seed": 2}
    assert np.array_equal(inst.raw, simu(1000, 10, seed=2).raw)
    assert not np.array_equal(inst.raw, simu(1000, 10, seed=3).raw)


def test_simc_structure():
    inst = simc(10, seed=4)
    m, noise = inst.provenance["clustered"], inst.provenance["noise"]
    assert noise == m // 3 and inst.n == m + noise
    assert 100 * 4 <= m <= 100 * 21
    body = inst.raw[:m]
    # walk the clusters: each starts at its centre, followed by 3..20 points
    # within 50 (per coordinate) of it
    i, count = 0, 0
    while i < m:
        centre = body[i]
        j = i + 1
        while j < m and np.abs(body[j] - centre).max() <= 50:
            j += 1
        assert 3 <= j - i - 1 <= 20
        i, count = j, count + 1
    assert count == 100
    assert np.array_equal(inst.raw, simc(10, seed=4).raw)


def test_normal_small():
    inst = normal_small(seed=0)
    assert inst.raw.shape == (11, 3)
    big = normal_small(20_000, 1, seed=1).raw
    assert abs(big.std() - 5000) < 100 and abs(big.mean()) < 100


def test_lognormal():
    inst = lognormal(3000, 8, seed=5)
    raw = inst.raw
    assert raw.shape == (3000, 8) and inst.X.shape == (3000, 8)
    assert inst.provenance == {"source": "array", "generator": "lognormal", "n": 3000, "p": 8,
                               "seed": 5, "sigma": 1.0, "rho": 0.6, "counts": 2,
                               "count_scale": 5.0}
    amounts, counts = raw[:, :6], raw[:, 6:]
    assert (amounts > 0).all()
    assert np.array_equal(counts, counts.round()) and (counts >= 0).all()
    # heavy right tails: mean well above the median in every column
    assert (raw.mean(axis=0) > 1.3 * np.median(raw, axis=0)).all()
    # a common size factor: log amounts correlate about rho = 0.6, counts follow
    C = np.corrcoef(np.log1p(raw).T)
    off = C[:6, :6][~np.eye(6, dtype=bool)]
    assert 0.5 < off.mean() < 0.7
    assert (C[:6, 6:] > 0.3).all()
    assert np.array_equal(raw, lognormal(3000, 8, seed=5).raw)
    assert not np.array_equal(raw, lognormal(3000, 8, seed=6).raw)
    # options: no counts, independent columns, a wider tail
    flat = lognormal(2000, 4, seed=1, counts=0, rho=0.0, sigma=1.5).raw
    assert (flat != flat.round()).all()
    assert np.abs(np.corrcoef(np.log(flat).T)[~np.eye(4, dtype=bool)]).max() < 0.1
    for bad in [dict(counts=9), dict(counts=-1), dict(rho=1.5), dict(sigma=0), dict(count_scale=0)]:
        with pytest.raises(ParameterError):
            lognormal(50, 8, seed=0, **bad)


@pytest.mark.parametrize("bad", [0, -1, 2.5, True])
def test_generator_arguments(bad):
    with pytest.raises(ParameterError):
        simu(bad, 3, seed=0)


@pytest.mark.parametrize("name,make", [
    ("simu_n200_seed1.csv", lambda: simu(200, 10, seed=1)),
    ("simu_n1000_seed1.csv", lambda: simu(1000, 10, seed=1)),
    ("simc_seed1.csv", lambda: simc(10, seed=1)),
    ("normal_n11_p3_seed1.csv", lambda: normal_small(11, 3, seed=1)),
])
def test_shipped_files_match_their_generator(name, make):
    path = INSTANCES / name
    assert path.stat().st_size < 200_000
    shipped = read_csv(path)
    assert np.allclose(shipped.raw, make().raw, rtol=0, atol=0.005 + 1e-9)
