"""A proof split on the number of groups (mipagg.exact.countsplit): each
side's bound against the brute-force optimum of its class, the split's
optimum against the problem's, the restriction reaching the master and
the pricing, and a resumed tree keeping its class."""

from __future__ import annotations

import numpy as np
import pytest
from _bruteforce import group_partitions, optimal_partition
from _strategies import tiny_instances
from hypothesis import given, settings

from mipagg.errors import ParameterError
from mipagg.exact import checkpoint
from mipagg.exact.bp import BPSettings, BranchAndPrice, branch_and_price
from mipagg.exact.countsplit import restriction, sides, split_by_groups
from mipagg.partition import group_sse


def class_optimum(X, k, max_groups=None, max_size=None) -> float:
    """The least SSE of the partitions into groups of k..2k−1 records in the
    class (inf when it is empty), by enumeration."""
    best = np.inf
    for groups in group_partitions(tuple(range(len(X))), k):
        if (max_groups is None or len(groups) <= max_groups) and \
                (max_size is None or max(map(len, groups)) <= max_size):
            best = min(best, sum(group_sse(X, g) for g in groups))
    return best


def seeded(seed, n=8, k=2):
    rng = np.random.default_rng(seed)
    return rng.integers(0, 4, size=(n, 2)).astype(float), k


def test_sides_cover_every_partition_of_k_to_2k_minus_1_records():
    """Every partition of 10 records into groups of 2..3 has at most 4 groups
    or groups of at most 2 records (5 of them), as the sides say."""
    assert sides(10, 2) == [{"max_groups": 4}, {"max_size": 2}]
    for groups in group_partitions(tuple(range(10)), 2):
        assert len(groups) <= 4 or max(map(len, groups)) <= 2
    assert sides(7, 2) == [{"max_size": 3}]       # no partition has fewer than 3 groups


@pytest.mark.parametrize("kw, msg", [
    (dict(max_groups=2), "max_groups must be in 3..4"),
    (dict(max_groups=5), "max_groups must be in 3..4"),
    (dict(max_size=1), "max_size must be in 2..3"),
    (dict(max_size=4), "max_size must be in 2..3"),
])
def test_a_limit_outside_its_range_is_refused(kw, msg):
    with pytest.raises(ParameterError, match=msg):
        restriction(8, 2, **kw)
    with pytest.raises(ParameterError, match=msg):
        branch_and_price(np.arange(16.0).reshape(8, 2), 2, **kw)


def test_no_partition_of_the_sizes_is_refused():
    with pytest.raises(ParameterError, match="no partition of 7 records"):
        restriction(7, 2, max_size=2)
    with pytest.raises(ParameterError, match="positive integer"):
        BPSettings(max_groups=0)


@settings(max_examples=25, deadline=None)
@given(tiny_instances(min_n=6, max_n=9, max_k=3))
def test_each_side_proves_its_class(inst):
    """A side run ends optimal with lower bound min(class optimum, its SSE);
    its root bound never exceeds the class optimum, its SSE never beats
    the problem's."""
    X, k = inst
    opt, _ = optimal_partition(X, k)
    for side in sides(len(X), k):
        r = branch_and_price(X, k, **side)
        best = class_optimum(X, k, **side)
        assert str(r.status) == "optimal" and r.restriction
        assert r.sse >= opt - 1e-7
        assert r.lower_bound == pytest.approx(min(best, r.sse), abs=1e-7)
        assert r.root_lp_bound <= best + 1e-7


@settings(max_examples=25, deadline=None)
@given(tiny_instances(min_n=6, max_n=10, max_k=3))
def test_the_split_proves_the_optimum(inst):
    X, k = inst
    opt, _ = optimal_partition(X, k)
    s = split_by_groups(X, k)
    assert s.success and len(s.sides) == len(sides(len(X), k))
    assert s.sse == pytest.approx(opt, abs=1e-7)
    assert s.lower_bound == pytest.approx(opt, abs=1e-7)
    assert s.partition.sse() == pytest.approx(s.sse, abs=1e-7)


@pytest.mark.parametrize("seed, side", [(0, dict(max_groups=3)), (4, dict(max_groups=3)),
                                         (10, dict(max_size=2))])
def test_the_restriction_raises_the_root_above_the_problems_optimum(seed, side):
    """Instances whose problem optimum lies outside the class: the class's
    root bound passes it, and stays below the class optimum."""
    X, k = seeded(seed)
    opt, _ = optimal_partition(X, k)
    r = branch_and_price(X, k, **side)
    assert opt + 0.3 < r.root_cut_bound <= class_optimum(X, k, **side) + 1e-7


def test_the_master_and_the_tree_hold_the_class_only():
    """No column of more than ``max_size`` records enters the master, at
    the root or in the tree; ``max_groups`` is the count row's limit."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(42, 2))
    t = BranchAndPrice(X, 3, BPSettings(max_size=3, cuts=False, close_gap=False))
    r = t.run()
    assert max(len(c) for c in t.master.columns) == 3 and r.nodes > 1
    assert r.restriction == "partitions into groups of at most 3 records"
    t = BranchAndPrice(X, 3, BPSettings(max_groups=13, cuts=False, close_gap=False))
    t.run()
    assert t.master.count_limit == 13


def test_a_resume_keeps_the_class(tmp_path):
    X, k = seeded(3, n=12)
    path = tmp_path / "side.npz"
    branch_and_price(X, k, max_groups=5, node_limit=1, checkpoint=str(path))
    for wider in (None, 6):
        with pytest.raises(ParameterError, match="max_groups = 5"):
            branch_and_price(X, k, max_groups=wider, resume=str(path),
                             checkpoint=str(tmp_path / "b.npz"))
    with pytest.raises(ParameterError, match="max_size = None"):
        branch_and_price(X, k, max_groups=5, max_size=2, resume=str(path),
                         checkpoint=str(tmp_path / "b.npz"))
    r = branch_and_price(X, k, max_groups=5, resume=str(path),
                         checkpoint=str(tmp_path / "c.npz"))
    assert r.lower_bound == pytest.approx(min(class_optimum(X, k, max_groups=5), r.sse))
    s = checkpoint.summary(checkpoint.load(tmp_path / "c.npz"))
    assert s["restriction"] == "partitions into at most 5 groups" and s["count_row"] == 5


def test_the_command_line_runs_a_side_and_says_so(tmp_path, capsys):
    """``mipagg run --method bp --max-groups R`` reports the class its status
    and bound hold for; a size outside k..2k−1 exits 2 before any work."""
    import json

    from mipagg.cli import main

    X, k = seeded(7, n=12)
    data = tmp_path / "d.csv"
    np.savetxt(data, X, delimiter=",", header="a,b", comments="")
    run = ["run", str(data), "-k", "2", "--method", "bp", "--json", "--quiet"]
    assert main(run + ["--max-groups", "5"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["restriction"] == "partitions into at most 5 groups"
    assert "Restricted run" in out["message"]
    assert out["lower_bound"] == pytest.approx(min(class_optimum(X, k, max_groups=5), out["sse"]))
    assert main(run + ["--max-size", "4"]) == 2
    assert "max_size must be in 2..3" in capsys.readouterr().err


def pairs_optimum(X) -> float:
    """The least SSE of a partition of an even number of records into pairs
    (DP over subsets, n ≤ ~16)."""
    n = len(X)
    best = {0: 0.0}
    for mask in range(1, 1 << n):
        if bin(mask).count("1") % 2:
            continue
        i = (mask & -mask).bit_length() - 1
        best[mask] = min(best[mask & ~(1 << i) & ~(1 << j)] + group_sse(X, (i, j))
                         for j in range(i + 1, n) if mask >> j & 1)
    return best[(1 << n) - 1]


@pytest.mark.parametrize("seed", [7, 12])
def test_two_workers_prove_the_side_as_one_does(seed):
    """A restricted tree on two workers (forked, the restriction rebuilt
    from the settings) ends as the serial one: optimal, with the bound
    min(class optimum, its SSE) (here the class of pairs)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(14, 2))
    best = pairs_optimum(X)
    options = dict(max_size=2, cuts=False, close_gap=False, node_close_max_columns=0,
                   fixing=False)
    for workers in (1, 2):
        r = branch_and_price(X, 2, workers=workers, **options)
        assert r.nodes > 4 and str(r.status) == "optimal" and r.workers == workers
        assert r.lower_bound == pytest.approx(min(best, r.sse), abs=1e-7)


def test_a_tree_of_the_problem_goes_on_as_the_side_of_fewer_groups(tmp_path):
    """Resumed with ``max_groups``, a checkpoint of the whole problem proves
    that side: its node bounds hold for every partition into fewer groups."""
    X, k = seeded(7, n=12)
    path = tmp_path / "whole.npz"
    first = branch_and_price(X, k, node_limit=1, checkpoint=str(path), cuts=False,
                             close_gap=False)
    assert first.open_nodes == 2
    r = branch_and_price(X, k, max_groups=5, resume=str(path), cuts=False, close_gap=False)
    assert r.restriction == "partitions into at most 5 groups" and r.nodes == 3
    assert r.lower_bound == pytest.approx(min(class_optimum(X, k, max_groups=5), r.sse))


def test_the_split_writes_a_checkpoint_per_side_and_refuses_a_bad_path_first(tmp_path):
    X, k = seeded(7, n=12)
    s = split_by_groups(X, k, checkpoint=str(tmp_path / "t.npz"), time_limit=60)
    assert s.success and sorted(p.name for p in tmp_path.iterdir()) == ["t_groups.npz",
                                                                         "t_sizes.npz"]
    assert [d["restriction"] for d in s.sides] == ["partitions into at most 5 groups",
                                                   "partitions into groups of at most 2 records"]
    from mipagg.outputs import OutputError

    with pytest.raises(OutputError):
        split_by_groups(X, k, checkpoint=str(tmp_path / "missing" / "t.npz"))
    with pytest.raises(ParameterError, match="sets max_size itself"):
        split_by_groups(X, k, max_size=2)


def test_a_split_goes_on_from_its_sides_checkpoints(tmp_path):
    """Stopped after a node a side, the split resumes each side from its own
    file and proves the brute-force optimum; a proven side ends at once."""
    X, k = seeded(7, n=12)
    opt, _ = optimal_partition(X, k)
    plain = dict(cuts=False, close_gap=False)
    first = split_by_groups(X, k, checkpoint=str(tmp_path / "a.npz"), node_limit=1, **plain)
    assert not first.success
    s = split_by_groups(X, k, resume=str(tmp_path / "a.npz"), checkpoint=str(tmp_path / "b.npz"),
                        **plain)
    assert s.success and s.sse == pytest.approx(opt, abs=1e-7)
    assert s.lower_bound == pytest.approx(opt, abs=1e-7)
    assert all(d["resumed_nodes"] >= 1 for d in s.sides)
    again = split_by_groups(X, k, resume=str(tmp_path / "b.npz"), **plain)
    assert again.success and [d["nodes"] for d in again.sides] == [d["nodes"] for d in s.sides]


def test_a_split_resume_refuses_missing_files_and_its_own_output(tmp_path):
    from mipagg.outputs import OutputError

    X, k = seeded(7, n=12)
    with pytest.raises(ParameterError, match="no checkpoint of either side"):
        split_by_groups(X, k, resume=str(tmp_path / "none.npz"))
    split_by_groups(X, k, checkpoint=str(tmp_path / "a.npz"), node_limit=1, cuts=False,
                    close_gap=False)
    with pytest.raises(OutputError):
        split_by_groups(X, k, resume=str(tmp_path / "a.npz"), checkpoint=str(tmp_path / "a.npz"))


def test_the_method_bp_split_proves_what_bp_proves():
    """``bp-split`` in the registry (``mipagg run --method bp-split``) takes
    bp's options less the two a split sets, and finds bp's optimum."""
    from mipagg import microaggregate
    from mipagg.methods import get_method

    accepted = get_method("bp-split").options()
    assert {"time_limit", "checkpoint", "resume", "workers", "cuts"} <= set(accepted)
    assert not {"max_groups", "max_size"} & set(accepted)
    X, k = seeded(11, n=13, k=3)
    split, whole = (microaggregate(X, k, m, node_limit=50).summary() for m in ("bp-split", "bp"))
    assert split["status"] == whole["status"] == "optimal"
    assert split["sse"] == pytest.approx(whole["sse"], abs=1e-7)
    assert split["lower_bound"] == pytest.approx(whole["sse"], abs=1e-7)
    assert len(split["sides"]) == 2 and split["nodes"] >= 2


def test_an_interrupted_side_leaves_the_other_unstarted_and_no_bound(monkeypatch):
    """Ctrl-C during the first side (status "interrupted"): the second side
    does not start, and one side's bound is no bound of the problem."""
    import dataclasses

    from mipagg.exact import countsplit
    from mipagg.status import Status

    calls = []

    def interrupted(X, k, **options):
        calls.append(options)
        return dataclasses.replace(branch_and_price(X, k, **options), status=Status.INTERRUPTED)

    monkeypatch.setattr(countsplit, "branch_and_price", interrupted)
    X, k = seeded(7, n=12)
    s = split_by_groups(X, k)
    assert len(calls) == 1 and calls[0]["max_groups"] == 5
    assert s.status == "interrupted" and s.lower_bound is None and len(s.sides) == 1


def test_mipagg_tree_combine_says_what_the_sides_checkpoints_prove(tmp_path, capsys):
    """``mipagg tree --combine`` of the two sides' checkpoints: the least
    open bound until both are closed (never above the optimum), then the
    optimum; one side alone, or sides of other data, is refused."""
    from mipagg.cli import main
    from mipagg.errors import DataError
    from mipagg.exact.countsplit import combine_checkpoints

    X, k = seeded(7, n=12)
    opt, _ = optimal_partition(X, k)
    plain = dict(cuts=False, close_gap=False)
    split_by_groups(X, k, checkpoint=str(tmp_path / "a.npz"), node_limit=1, **plain)
    files = [str(tmp_path / "a_groups.npz"), str(tmp_path / "a_sizes.npz")]
    c = combine_checkpoints(files)
    assert not c["proven"] and c["lower_bound"] <= opt + 1e-7
    assert [r["restriction"] for r in c["rows"]] == ["partitions into at most 5 groups",
                                                     "partitions into groups of at most 2 records"]
    s = split_by_groups(X, k, resume=str(tmp_path / "a.npz"), checkpoint=str(tmp_path / "b.npz"),
                        **plain)
    done = combine_checkpoints([str(tmp_path / "b_groups.npz"), str(tmp_path / "b_sizes.npz")])
    assert done["proven"] and done["lower_bound"] == pytest.approx(opt, abs=1e-7) == s.sse
    assert main(["tree", "--combine", str(tmp_path / "b_sizes.npz"),
                 str(tmp_path / "b_groups.npz")]) == 0
    assert "every side is closed" in capsys.readouterr().out
    with pytest.raises(DataError, match="no side of the partitions into at most 5 groups"):
        combine_checkpoints(files[1:])
    Y = X.copy()
    Y[0, 0] += 1
    branch_and_price(Y, k, max_size=2, node_limit=1, checkpoint=str(tmp_path / "y.npz"), **plain)
    with pytest.raises(DataError, match="other data"):
        combine_checkpoints([files[0], str(tmp_path / "y.npz")])
