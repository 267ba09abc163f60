"""Where a partition's gap lies (mipagg.exact.gapshare): the identity
SSE − D = Σ rc + cut slack for any duals, non-negative reduced costs at a bp
root's certified duals, and ``mipagg tree --data`` reporting them."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from mipagg.errors import DataError
from mipagg.exact import checkpoint
from mipagg.exact.bp import branch_and_price
from mipagg.exact.cuts import Rank1Cut
from mipagg.exact.gapshare import gap_shares
from mipagg.exact.reference import set_partitioning
from mipagg.partition import Partition


def _chunks(rng, n, k):
    """Random labels of n ≥ k records in groups of k..2k−1."""
    order, labels, start, g = rng.permutation(n), np.empty(n, dtype=int), 0, 0
    while start < n:
        left = n - start
        size = left if left < 2 * k else int(rng.integers(k, min(2 * k - 1, left - k) + 1))
        labels[order[start:start + size]] = g
        start, g = start + size, g + 1
    return labels


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(6, 30), st.integers(0, 6))
def test_the_groups_carry_the_gap_for_any_duals(seed, n, n_cuts):
    """SSE − Σπ − Σσ equals the groups' reduced costs plus the unfilled cuts'
    term, whatever the duals, for subset-row and 4-row rank-1 cuts."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    labels = _chunks(rng, n, 3)
    pi = rng.normal(size=n)
    cuts = [tuple(rng.choice(n, 3, replace=False)) for _ in range(n_cuts)]
    cuts.append(Rank1Cut(tuple(rng.choice(n, 4, replace=False)), (1, 1, 1, 1), 3))
    sigma = -rng.random(len(cuts))
    s = gap_shares(X, labels, pi, cuts, sigma)
    P = Partition(labels, X)
    assert s.sse == pytest.approx(P.sse())
    assert s.dual_objective == pytest.approx(pi.sum() + sigma.sum())
    assert s.gap == pytest.approx(s.reduced_costs.sum() + s.cut_slack, abs=1e-9)
    # each group priced by hand: its SSE, its records' duals, its cut coefficients
    for g, rc in zip(s.groups, s.reduced_costs):
        members = set(np.flatnonzero(labels == g).tolist())
        coef = [sum(a for v, a in zip(*(c.rows, c.nums) if isinstance(c, Rank1Cut) else
                                      (c, (1, 1, 1))) if int(v) in members)
                // (c.den if isinstance(c, Rank1Cut) else 2) for c in cuts]
        m = sorted(members)
        assert rc == pytest.approx(Partition(np.zeros(len(m), int), X[m]).sse()
                                   - pi[m].sum() - float(np.dot(sigma, coef)))
    assert s.cut_slack >= -1e-12             # σ ≤ 0 and a partition fills a cut at most once


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """A bp tree on 24 normal records at k = 3 (standardized) with 16
    subset-row cuts at the root, stopped after 3 nodes; the optimum by the
    full MIP, the data file and the checkpoint."""
    from mipagg.instance import read_csv

    folder = tmp_path_factory.mktemp("gapshare")
    data, path = folder / "d.csv", folder / "t.npz"
    np.savetxt(data, np.random.default_rng(4).normal(size=(24, 3)), delimiter=",",
               header="a,b,c", comments="")
    X = read_csv(data).X                       # standardized, as `mipagg tree --data` reads it
    r = branch_and_price(X, 3, node_limit=3, checkpoint=path, threads=1, close_gap=False,
                         node_close_max_columns=0, mip_time=0, min_violation=0.0)
    return X, r, checkpoint.load(path), set_partitioning(X, 3, integral=True), \
        (str(data), str(path))


def test_at_the_root_duals_no_group_has_a_negative_reduced_cost(root):
    """The root's certified duals price every cluster of k..2k−1 records at
    ≥ 0: the groups of the incumbent, of the optimum and of random
    partitions; the dual objective is the root's bound, so the incumbent's
    groups carry exactly UB − root bound."""
    X, r, ck, (opt, best), _ = root
    stop = ck.root_stop
    cuts = ck.cuts[:stop.cut_duals.size]        # the root's come first; node cuts follow
    assert stop.certified and stop.reason == "converged" and len(cuts) > 0
    tol = 1e-6
    inc = gap_shares(X, ck.labels, stop.duals, cuts, stop.cut_duals)
    assert inc.dual_objective == pytest.approx(stop.bound)
    assert inc.sse == pytest.approx(r.sse) and inc.gap >= -tol
    assert inc.reduced_costs.min() >= -tol and inc.cut_slack >= -tol
    at_opt = gap_shares(X, best.labels, stop.duals, cuts, stop.cut_duals)
    assert at_opt.sse == pytest.approx(opt)
    assert at_opt.reduced_costs.min() >= -tol and -tol <= at_opt.gap <= inc.gap + tol
    rng = np.random.default_rng(0)
    for _ in range(200):
        s = gap_shares(X, _chunks(rng, 24, 3), stop.duals, cuts, stop.cut_duals)
        assert s.reduced_costs.min() >= -tol
    assert inc.top(2)[0][1] == inc.reduced_costs.max()
    if inc.gap > tol:
        assert inc.share(len(inc.groups)) == pytest.approx(1 - inc.cut_slack / inc.gap)
    else:
        assert inc.share() is None


def test_bad_shapes_are_refused():
    X = np.zeros((4, 1))
    with pytest.raises(DataError, match="do not match"):
        gap_shares(X, [0, 0, 1], np.zeros(4))
    with pytest.raises(DataError, match="cut duals"):
        gap_shares(X, [0, 0, 1, 1], np.zeros(4), [(0, 1, 2)], [])


def test_mipagg_tree_prices_the_groups_of_a_tree_with_node_cuts(root, tmp_path, capsys):
    """A checkpoint holds the cuts found at nodes after the root's: the
    root's duals price the root's cuts only (before, ``mipagg tree --data``
    refused such a file: "N cuts but M cut duals")."""
    from mipagg.cli import main

    X, _, _, _, (data, _) = root
    path = tmp_path / "nc.npz"
    r = branch_and_price(X, 3, node_limit=6, checkpoint=path, threads=1, close_gap=False,
                         node_close_max_columns=0, mip_time=0, min_violation=0.0,
                         node_cut_rounds=1, retire_cuts=False)
    ck = checkpoint.load(path)
    assert r.node_cuts > 0 and len(ck.cuts) > ck.root_stop.cut_duals.size
    assert main(["tree", str(path), "--data", str(data), "--json"]) == 0
    g = json.loads(capsys.readouterr().out)["gap_by_group"]
    s = gap_shares(X, ck.labels, ck.root_stop.duals, ck.cuts[:ck.root_stop.cut_duals.size],
                   ck.root_stop.cut_duals)
    assert g["sse"] == pytest.approx(r.sse) and g["gap"] == pytest.approx(s.gap)
    assert min(s.reduced_costs) >= -1e-6       # the root's duals are certified


def test_mipagg_tree_prices_the_groups(root, tmp_path, capsys):
    """``mipagg tree --data`` adds where the gap lies: for the incumbent, or
    for the partition of ``--labels`` (the optimum here: a smaller gap)."""
    from mipagg.cli import main

    X, r, ck, (opt, best), (data, path) = root
    labels = tmp_path / "opt.csv"
    labels.write_text("group\n" + "\n".join(map(str, best.labels)) + "\n")
    assert main(["tree", path, "--data", str(data), "--json", "--top", "3"]) == 0
    g = json.loads(capsys.readouterr().out)["gap_by_group"]
    assert g["partition"] == "incumbent" and g["sse"] == pytest.approx(r.sse)
    assert len(g["top_groups"]) == 3 and g["groups"] == len(np.unique(ck.labels))
    assert main(["tree", path, "--data", str(data), "--labels", str(labels)]) == 0
    text = capsys.readouterr().out
    assert f"(SSE {opt:.4f})" in text and "groups of largest reduced cost" in text
    assert main(["tree", path, "--labels", str(labels)]) == 2
    assert "--labels needs --data" in capsys.readouterr().err
    labels.write_text("group\n0\n0\n")
    assert main(["tree", path, "--data", str(data), "--labels", str(labels)]) != 0
    assert "2 labels for 24 records" in capsys.readouterr().err
