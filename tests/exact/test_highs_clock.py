"""HiGHS's ``time_limit`` bounds the cumulative run time of a ``Highs`` object
over all its ``run()`` calls (HiGHS issues #1331 and #1477; issue 8, bug 1).
:func:`mipagg.exact.highs.set_time_limit` passes run time so far + seconds
left, so a reused object keeps honouring a per-call limit however long it has
run in total.  The tests solve small LPs repeatedly until the object's own
cumulative clock (``getRunTime``) exceeds the per-call limit several times
over, with a limit far above one solve's time: no reliance on fragile timing
(one solve takes milliseconds; the limit is 0.25 s)."""

import numpy as np
import pytest

highspy = pytest.importorskip("highspy")

from mipagg.exact.highs import set_time_limit  # noqa: E402
from mipagg.exact.master import MasterProblem  # noqa: E402

LIMIT = 0.25        # seconds per call, >> one solve (a few ms)
CUMULATIVE = 2.5    # keep solving until getRunTime() > CUMULATIVE * LIMIT
MAX_SOLVES = 3000   # safety net: the loops end long before


def _lp(seed=0, m=120, nv=240):
    """A dense-ish random packing LP: max c·x, A x <= 1, x >= 0 (bounded, feasible)."""
    from scipy.sparse import csc_matrix

    rng = np.random.default_rng(seed)
    A = csc_matrix(rng.random((m, nv)) * (rng.random((m, nv)) < 0.2))
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("presolve", "off")
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = nv, m
    lp.col_cost_ = -rng.random(nv)
    lp.col_lower_ = np.zeros(nv)
    lp.col_upper_ = np.full(nv, highspy.kHighsInf)
    lp.row_lower_ = np.full(m, -highspy.kHighsInf)
    lp.row_upper_ = np.ones(m)
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = A.indptr
    lp.a_matrix_.index_ = A.indices
    lp.a_matrix_.value_ = A.data
    h.passModel(lp)
    return h


def _solve_until_cumulative(h, setter):
    """Cold-solve ``h`` (clearSolver) with ``setter(h, LIMIT)`` before each run
    until its cumulative run time exceeds CUMULATIVE·LIMIT; every run must be
    optimal.  Returns the number of runs."""
    runs = 0
    while h.getRunTime() <= CUMULATIVE * LIMIT:
        assert runs < MAX_SOLVES
        h.clearSolver()
        setter(h, LIMIT)
        h.run()
        runs += 1
        assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal, (
            f"run {runs} stopped with {h.modelStatusToString(h.getModelStatus())} "
            f"after a cumulative {h.getRunTime():.3f} s (per-call limit {LIMIT} s)")
    return runs


def test_set_time_limit_survives_cumulative_clock():
    h = _lp()
    runs = _solve_until_cumulative(h, set_time_limit)
    assert runs > 1
    assert h.getRunTime() > CUMULATIVE * LIMIT   # the per-call limit was exceeded in total
    # and the limit still bites for the next call: the option is relative to now
    set_time_limit(h, LIMIT)
    assert h.getOptionValue("time_limit")[1] == pytest.approx(h.getRunTime() + LIMIT)
    set_time_limit(h, None)
    assert h.getOptionValue("time_limit")[1] == highspy.kHighsInf


def test_plain_time_limit_is_cumulative_in_highs():
    """What the fix is for: with the plain option, the same object reports a
    time limit at once after its cumulative run time passed the limit."""
    h = _lp()
    _solve_until_cumulative(h, set_time_limit)
    h.clearSolver()
    h.setOptionValue("time_limit", LIMIT)
    h.run()
    if h.getModelStatus() == highspy.HighsModelStatus.kOptimal:
        pytest.skip("this HiGHS version resets its run clock per run(); the fix is harmless")
    assert h.getModelStatus() == highspy.HighsModelStatus.kTimeLimit


def test_master_problem_many_solves_past_the_limit():
    """MasterProblem.solve(time_limit=LIMIT) keeps returning solutions when
    the master's total solve time exceeds LIMIT several times over (cold IPM
    solves, new columns each round)."""
    rng = np.random.default_rng(1)
    n = 90
    X = rng.standard_normal((n, 3))
    mp = MasterProblem(X, algorithm="ipm")
    mp.add_columns([list(range(i, i + 3)) for i in range(0, n, 3)])   # feasible from the start
    h = mp._highs
    solves = 0
    while h.getRunTime() <= CUMULATIVE * LIMIT:
        assert solves < MAX_SOLVES
        mp.add_columns([sorted(rng.choice(n, size=int(rng.integers(3, 6)), replace=False))
                        for _ in range(40)])
        sol = mp.solve(time_limit=LIMIT)
        solves += 1
        assert sol is not None, (f"solve {solves} hit the time limit after a cumulative "
                                 f"{h.getRunTime():.3f} s (per-call limit {LIMIT} s)")
        assert np.isfinite(sol.value)
    assert solves > 1
    # a zero budget is still honoured
    assert mp.solve(time_limit=0.0) is None
