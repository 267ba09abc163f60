"""Hypothesis strategies shared by the exact-method tests."""

import numpy as np
from hypothesis import strategies as st


@st.composite
def tiny_instances(draw, min_n=4, max_n=12, max_k=4):
    """(X, k): n in min_n..max_n records of 1..3 integer attributes in 0..3
    (ties everywhere), k in 2..min(max_k, n // 2), the last record sometimes a
    duplicate of the first; small enough for the brute-force optimum."""
    n = draw(st.integers(min_n, max_n))
    k = draw(st.integers(2, max(2, min(max_k, n // 2))))
    rng = np.random.default_rng(draw(st.integers(0, 100_000)))
    X = rng.integers(0, 4, size=(n, draw(st.integers(1, 3)))).astype(float)
    if draw(st.booleans()):
        X[-1] = X[0]                                   # a duplicate record
    return X, k
