"""Simulated instances of seed 004 section 5 (Domingo-Ferrer et al. 2006).

* :func:`simu` — "SimU": n = 1000 records, p = 10 attributes drawn uniformly
  from [−10 000, 10 000].
* :func:`simc` — "SimC": 100 centres x_1..x_100 uniform in [−10 000, 10 000]^p;
  for each centre a cardinality c_i uniform in {3, ..., 20} and c_i vectors
  from the origin to uniform points of [−50, 50]^p, added to x_i, giving a
  cluster of c_i + 1 points (the centre and its c_i neighbours); finally
  ⌊m/3⌋ uniform points of [−10 000, 10 000]^p are added, m being the number of
  points generated so far ("some points midway between clusters").
* :func:`normal_small` — the Table 6/7 study: 11 records, p attributes drawn
  from N(0, 5000) (5000 read as the standard deviation; the scale does not
  matter after standardization).
* :func:`lognormal` — not from the seeds: a heavy-tailed, business-like file
  (lognormal amounts driven by a common size factor, plus integer counts),
  the kind of data the CASC files (Tarragona: company accounts) contain.

Every generator takes an explicit ``seed`` and records it, with the
parameters, in the instance provenance; all values are standardized with the
package default (sample standard deviation) like any other instance.
"""

from __future__ import annotations

import numpy as np

from .errors import ParameterError
from .instance import Instance, from_array

__all__ = ["simu", "simc", "normal_small", "lognormal"]


def _check_positive(**values):
    for name, v in values.items():
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ParameterError(f"{name} must be a positive integer, got {v!r}")


def simu(n: int = 1000, p: int = 10, *, seed: int) -> Instance:
    """SimU (seed 004 §5): ``n`` × ``p`` uniform values in [−10 000, 10 000].

    >>> simu(50, 3, seed=1).raw.shape
    (50, 3)
    """
    _check_positive(n=n, p=p)
    rng = np.random.default_rng(seed)
    raw = rng.uniform(-10_000.0, 10_000.0, size=(n, p))
    return from_array(raw, name=f"simu-n{n}-p{p}-seed{seed}", generator="simu", n=n, p=p,
                      seed=seed)


def simc(p: int = 10, *, seed: int, clusters: int = 100) -> Instance:
    """SimC (seed 004 §5): ``clusters`` tight clusters of 4..21 points plus one
    third as many uniform points; about 1 500 records for the defaults.

    >>> inst = simc(seed=1)
    >>> inst.provenance["clustered"] + inst.provenance["noise"] == inst.n
    True
    """
    _check_positive(p=p, clusters=clusters)
    rng = np.random.default_rng(seed)
    centres = rng.uniform(-10_000.0, 10_000.0, size=(clusters, p))
    parts = []
    for x in centres:
        c = int(rng.integers(3, 21))  # uniform in 3..20
        offsets = rng.uniform(-50.0, 50.0, size=(c, p))
        parts.append(np.vstack([x, x + offsets]))
    body = np.vstack(parts)
    noise = rng.uniform(-10_000.0, 10_000.0, size=(body.shape[0] // 3, p))
    raw = np.vstack([body, noise])
    return from_array(raw, name=f"simc-p{p}-seed{seed}", generator="simc", p=p,
                      clusters=clusters, seed=seed, clustered=int(body.shape[0]),
                      noise=int(noise.shape[0]))


def normal_small(n: int = 11, p: int = 3, *, seed: int) -> Instance:
    """Small normal data set of seed 004 Table 6 (n = 11, p = 3, N(0, 5000)).

    >>> normal_small(seed=0).raw.shape
    (11, 3)
    """
    _check_positive(n=n, p=p)
    rng = np.random.default_rng(seed)
    raw = rng.normal(0.0, 5000.0, size=(n, p))
    return from_array(raw, name=f"normal-n{n}-p{p}-seed{seed}", generator="normal_small",
                      n=n, p=p, seed=seed)


def lognormal(n: int, p: int = 10, *, seed: int, sigma: float = 1.0, rho: float = 0.6,
              counts: int | None = None, count_scale: float = 5.0) -> Instance:
    """Heavy-tailed business-like instance: ``n`` records, ``p`` columns.

    Each record (a "company") has a latent size s ~ N(0, 1).  The first
    ``p − counts`` columns are amounts (turnover, assets, wages, ...):
    ``exp(μ_j + σ·(√ρ·s + √(1−ρ)·e_ij))`` with e_ij ~ N(0, 1) and column
    levels μ_j ~ U(0, 5), so the logs of two amounts have correlation ``rho``
    and every column has a long right tail (skewness grows with ``sigma``).
    The last ``counts`` columns (default ``max(1, p // 4)``; 0 is allowed)
    are integer counts (employees, branches, ...): Poisson with mean
    ``count_scale · exp(σ·(√ρ·s + √(1−ρ)·e_ij))``, hence many ties, small
    values and a few very large ones.  Not from the seeds; meant for scaling
    benchmarks (e.g. column generation on 4 000 records, k = 3) on data
    less uniform than SimU.  Standardized like every instance.

    O(n·p).

    >>> inst = lognormal(200, 6, seed=1)
    >>> inst.raw.shape, bool((inst.raw[:, -1] == inst.raw[:, -1].round()).all())
    ((200, 6), True)
    """
    _check_positive(n=n, p=p)
    if counts is None:
        counts = max(1, p // 4)
    if (isinstance(counts, bool) or not isinstance(counts, (int, np.integer))
            or not 0 <= counts <= p):
        raise ParameterError(f"counts must be an integer in 0..p = {p}, got {counts!r}")
    if not (isinstance(sigma, (int, float)) and np.isfinite(sigma) and sigma > 0):
        raise ParameterError(f"sigma must be a positive number, got {sigma!r}")
    if not (isinstance(rho, (int, float)) and 0.0 <= rho <= 1.0):
        raise ParameterError(f"rho must be in [0, 1], got {rho!r}")
    if not (isinstance(count_scale, (int, float)) and count_scale > 0):
        raise ParameterError(f"count_scale must be positive, got {count_scale!r}")
    rng = np.random.default_rng(seed)
    size = rng.standard_normal(n)
    noise = rng.standard_normal((n, p))
    latent = sigma * (np.sqrt(rho) * size[:, None] + np.sqrt(1.0 - rho) * noise)
    m = p - int(counts)
    levels = rng.uniform(0.0, 5.0, size=m)
    raw = np.empty((n, p))
    raw[:, :m] = np.exp(levels + latent[:, :m])
    raw[:, m:] = rng.poisson(count_scale * np.exp(latent[:, m:]))
    return from_array(raw, name=f"lognormal-n{n}-p{p}-seed{seed}", generator="lognormal",
                      n=n, p=p, seed=seed, sigma=float(sigma), rho=float(rho),
                      counts=int(counts), count_scale=float(count_scale))
