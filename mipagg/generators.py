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

Every generator takes an explicit ``seed`` and records it, with the
parameters, in the instance provenance; all values are standardized with the
package default (sample standard deviation) like any other instance.
"""

from __future__ import annotations

import numpy as np

from .errors import ParameterError
from .instance import Instance, from_array

__all__ = ["simu", "simc", "normal_small"]


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
