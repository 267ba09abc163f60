"""Best-known partitions within one time budget: a portfolio of the strongest
methods, each result post-processed, the best kept.

The stages, in this order (``methods`` selects a subset of the methods, see
:data:`PORTFOLIO_METHODS`):

1. cheap starts: ``mdav-mhm`` (seed 004 §4.3) and ``vmdav`` (V-MDAV);
   when their O(n²·p/k) cost would not fit the budget, MHM along the
   first principal direction (``pca-mhm``, O(n·p + k·n)) comes first;
2. TSP-based heuristics: ``mdav-lk-mhm`` (seed 002 §5.2), ``compress`` with
   c = 3 and c = 2 (seed 003 Algorithm 3) and ``tsp-mhm`` ((HM)²-Micro,
   seed 002 §4, LKH path) repeated with independent seeds;
3. merge-and-resplit search (:func:`mipagg.improve.merge_split_search`) from
   the best partitions of up to :data:`SEARCH_STARTS` different methods;
4. exact methods, fed the best partition so far through their ``initial``
   option: ``cg`` (column generation with rounding and a certified lower
   bound, seed 001 §5) and ``bp`` (branch and price) when registered in
   :data:`mipagg.methods.METHODS`;
5. polish: rounds of an RCS restart (seed 003 Algorithm 4) and a
   merge-and-resplit search from the best partition.

Every method result goes through :func:`mipagg.improve.split_large_groups`
(seed 001 Proposition 2.2), :func:`mipagg.improve.local_search` and Random
Cluster Shuffling (seeded); the lowest SSE wins, so the portfolio is never
worse than the best single method it ran (nor than that method's
post-processed result), and its partition has groups of k..2k−1.

Budget (fractions of ``time_limit``): the heuristics stop at
:data:`HEURISTIC_SHARE`, the search from several starts at
:data:`SEARCH_SHARE` (without an exact method both run until the polish
reserve), an exact method gets what remains minus the polish reserve
(:data:`POLISH_SHARE`, at least 1 s; half of it for ``cg`` when ``bp``
follows).  Every stage is timed; a stage starts only when its estimated cost
(measured on the previous stage of its kind) fits, and the searches and
exact runs get their remaining time as ``time_limit``, so the run ends
within a few seconds of ``time_limit`` (one uninterruptible step such as an
LKH tour or a HiGHS call).  Seeds of the randomized runs are derived from
``seed`` per stage and repeat, so two runs with the same seed and a budget
that cuts nothing are identical; ``summary()["budget"]`` records whatever
the clock cut (``time_limited``, ``skipped``).
"""

from __future__ import annotations

import inspect
import math
import time
from dataclasses import dataclass, field

import numpy as np

from .errors import ParameterError
from .partition import Partition
from .status import Status
from .validation import as_rows, check_k

__all__ = ["portfolio", "PortfolioResult", "PortfolioRun", "PORTFOLIO_METHODS"]

PORTFOLIO_METHODS = ("mdav-mhm", "vmdav", "mdav-lk-mhm", "compress", "tsp-mhm", "cg", "bp")
EXACT_METHODS = ("cg", "bp")
HEURISTIC_SHARE = 0.30        # heuristics end at this fraction of time_limit (exact runs follow)
SEARCH_SHARE = 0.50           # the merge-and-resplit searches end here (exact runs follow)
POLISH_SHARE = 0.10           # kept for the polish stage (at least 1 s, at most half)
TSP_REPEATS = 30              # at most this many seeded (HM)²-Micro runs
COMPRESSION_RATIOS = (3, 2)
SEARCH_STARTS = 3             # merge-and-resplit searches from the best of this many methods
POLISH_ROUNDS = 10            # at most this many polish rounds (RCS restart + search)
MDAV_SECONDS = 4e-9          # × n²·p/k: MDAV / V-MDAV (n = 30 000, p = 10, k = 5: 6.5 s, load 7)
EXACT_SETUP_SECONDS = 1e-6   # × n²: set-up of cg/bp before their first deadline check
                             # (n = 10 000: bp took 115 s under an 8 s budget, load 9)
_STAGE_CODES = {"tsp-mhm": 1, "compress": 2, "rcs": 3, "polish": 4, "search": 5, "exact": 6,
                "plugin": 7}


@dataclass
class PortfolioRun:
    """One method run inside the portfolio and its post-processing."""

    method: str
    options: dict
    seed: int | None
    sse: float | None             # the method's own partition
    sse_improved: float | None    # after split + local search + RCS
    seconds: float                # the method
    improve_seconds: float = 0.0  # its post-processing
    status: str = "ok"            # "ok" or "error: ..."
    details: dict = field(default_factory=dict)   # lower_bound, status of exact runs

    def as_dict(self, sst: float) -> dict:
        def il(v):
            return None if v is None or sst <= 0 else 100.0 * v / sst

        return {"method": self.method, "options": dict(self.options), "seed": self.seed,
                "sse": self.sse, "sse_improved": self.sse_improved, "il": il(self.sse),
                "il_improved": il(self.sse_improved), "seconds": self.seconds,
                "improve_seconds": self.improve_seconds, "status": self.status,
                **self.details}


@dataclass
class PortfolioResult:
    """Outcome of :func:`portfolio`: the best partition, where it came from,
    every run, the best certified lower bound of the exact runs (or None)
    and the budget accounting."""

    partition: Partition
    best_method: str              # method of the run the best partition comes from
    best_run: int                 # index of that run in ``runs``
    best_steps: list              # steps that improved it after the run ("search", "rcs")
    runs: list
    lower_bound: float | None
    bound_method: str | None
    exact_status: str | None      # status of the exact run that gave the bound
    time_limit: float
    seconds: float
    seed: int | None
    stages: dict                  # seconds per stage
    skipped: list                 # {"method", "reason"} of stages the budget cut
    time_limited: bool            # the clock changed the result (something skipped or cut)
    searches: list = field(default_factory=list)   # merge-and-resplit searches (stage 3)
    polish: dict = field(default_factory=dict)

    @property
    def sse(self) -> float:
        return self.partition.sse()

    @property
    def gap(self) -> float | None:
        from .exact.bounds import gap

        return gap(self.sse, self.lower_bound)

    @property
    def status(self) -> Status | None:
        """"optimal" when the bound closes the gap (relative 1e-6), else the
        exact run's status ("converged", "time_limit", ...); None without a
        certified bound.  A :class:`~mipagg.status.Status` (equal to its word)."""
        if self.lower_bound is None:
            return None
        if self.lower_bound >= self.sse - 1e-6 * max(abs(self.sse), 1e-12):
            return Status.OPTIMAL
        return None if self.exact_status is None else Status(self.exact_status)

    @property
    def success(self) -> bool:
        """At least one method run finished (the best partition is one of theirs)."""
        return any(r.status == "ok" for r in self.runs)

    @property
    def message(self) -> str:
        if not self.success:
            return Status.ERROR.message
        if self.status == Status.OPTIMAL:
            return Status.OPTIMAL.message
        budget = "; the time budget cut some stages" if self.time_limited else ""
        return f"Best partition of {len(self.runs)} runs ({self.best_method}){budget}."

    def summary(self) -> dict:
        sst = self.partition.sst()
        out = {"best_method": self.best_method, "best_run": self.best_run,
               "best_steps": list(self.best_steps), "best_sse": self.sse,
               "best_il": self.partition.il(),
               "runs": [r.as_dict(sst) for r in self.runs],
               "budget": {"time_limit": self.time_limit, "seconds": self.seconds,
                          "overrun": max(0.0, self.seconds - self.time_limit),
                          "time_limited": self.time_limited, "skipped": list(self.skipped),
                          "stages": dict(self.stages)},
               "searches": list(self.searches), "polish": dict(self.polish),
               "portfolio_seed": self.seed, "success": self.success, "message": self.message}
        if self.lower_bound is not None:
            status = self.status
            out.update(lower_bound=self.lower_bound, gap=self.gap,
                       status=None if status is None else status.value,
                       bound_method=self.bound_method)
        return out


def _child_seed(seed, stage: str, i: int) -> int:
    """Seed of repeat ``i`` of ``stage``, derived from ``seed`` (< 2**31, for LKH)."""
    ss = np.random.SeedSequence([int(seed), _STAGE_CODES[stage], int(i)])
    return int(ss.generate_state(1)[0] >> 1)


def _check_methods(methods) -> list[str]:
    if methods is None:
        return list(PORTFOLIO_METHODS)
    if isinstance(methods, str):
        methods = [methods]
    methods = list(methods)
    plugins = [m for m in methods if m not in PORTFOLIO_METHODS and _is_plugin(m)]
    unknown = [m for m in methods if m not in PORTFOLIO_METHODS and m not in plugins]
    if unknown or not methods:
        raise ParameterError(f"portfolio methods must be a non-empty subset of "
                             f"{list(PORTFOLIO_METHODS)} and plug-in methods, got {methods!r}")
    return [m for m in PORTFOLIO_METHODS if m in methods] + plugins


def _is_plugin(name) -> bool:
    """A plug-in method (mipagg.plugins) may join the portfolio's heuristics."""
    from .methods import METHODS, method_names

    return isinstance(name, str) and name in method_names() and \
        getattr(METHODS[name], "plugin", False)


class _Run:
    """Mutable state of one portfolio call: best partition, runs, clock."""

    def __init__(self, X, k, seed, time_limit, progress):
        from .deadline import Deadline

        self.X, self.k, self.seed = X, k, seed
        self.clock = Deadline(time_limit)   # handed to every loop that can run long
        self.t0 = time.perf_counter()
        self.deadline = self.t0 + time_limit
        self.time_limit = time_limit
        self.progress = progress
        self.best: Partition | None = None
        self.best_sse = math.inf
        self.best_method = None
        self.best_run = None
        self.best_steps: list = []
        self.runs: list[PortfolioRun] = []
        self.stages: dict = {}
        self.skipped: list = []
        self.time_limited = False
        self.lower_bound = None
        self.bound_method = None
        self.exact_status = None
        self.rcs_count = 0
        self.improved: list = []   # (sse after improvement, run index, Partition)

    def now(self) -> float:
        return time.perf_counter()

    def status_optimal(self) -> bool:
        """The certified bound meets the best SSE (relative 1e-6)."""
        lb = self.lower_bound
        return lb is not None and lb >= self.best_sse - 1e-6 * max(abs(self.best_sse), 1e-12)

    def left(self, until=None) -> float:
        return (self.deadline if until is None else until) - self.now()

    def skip(self, method: str, reason: str) -> None:
        self.skipped.append({"method": method, "reason": reason})
        self.time_limited = True

    def offer(self, P: Partition, run_index: int, step: str | None = None) -> None:
        """Keep ``P`` if it beats the best; it comes from run ``run_index``,
        improved further by ``step`` ("search", "rcs") unless None."""
        s = P.sse()
        if s < self.best_sse - 1e-12 * max(1.0, abs(s)):
            if step is None:
                steps = []
            elif run_index == self.best_run:
                steps = self.best_steps + ([step] if self.best_steps[-1:] != [step] else [])
            else:
                steps = [step]
            self.best, self.best_sse, self.best_steps = P, s, steps
            self.best_method, self.best_run = self.runs[run_index].method, run_index
            if s <= 1e-12 * max(1.0, P.sst()) or P.n < 2 * self.k:
                # SSE ≥ 0 always; below 2k records one group is the only k-partition
                self.certify(max(s, 0.0) if P.n < 2 * self.k else 0.0, "trivial", "optimal")

    def certify(self, bound: float, method: str, status) -> None:
        if self.lower_bound is None or bound > self.lower_bound:
            self.lower_bound, self.bound_method, self.exact_status = float(bound), method, status

    def report(self, stage: str, force: bool = False, **fields) -> None:
        sst = self.best.sst() if self.best is not None else 0.0
        il = 100.0 * self.best_sse / sst if sst > 0 and self.best is not None else None
        self.progress.update(force=force, stage=stage,
                             best_sse=None if self.best is None else self.best_sse,
                             best_il=il, lower_bound=self.lower_bound, **fields)

    def improve(self, P: Partition, until: float | None = None) -> Partition:
        """Split large groups, local search, RCS (seeded), split again; all
        stop at ``until`` (a ``perf_counter`` time: the end of the stage) or
        the portfolio's deadline."""
        from .deadline import Deadline
        from .improve import improve_partition

        clock = self.clock if until is None else Deadline(max(self.left(until), 0.0))
        Q = improve_partition(self.X, P, self.k, how="local", time_limit=clock)
        s = _child_seed(self.seed, "rcs", self.rcs_count)
        self.rcs_count += 1
        Q = improve_partition(self.X, Q, self.k, how="rcs", seed=s, time_limit=clock)
        if clock.hit:
            self.time_limited = True
        return Q

    def fits_memory(self, method: str, options: dict | None = None) -> bool:
        """False (and the stage recorded as skipped) when ``method`` would not
        fit in memory (:func:`mipagg.memory.check_memory`)."""
        from .errors import MipaggError
        from .memory import check_memory

        try:
            check_memory(method, self.X.shape[0], self.X.shape[1], self.k, options)
        except MipaggError as exc:
            self.skipped.append({"method": method, "reason": f"memory: {exc}"})
            return False
        return True

    def run(self, method: str, fn, *, options: dict, seed=None, stage: str | None = None,
            until: float | None = None):
        """Run ``fn() -> result with .partition`` (or a Partition), improve it
        (until ``until``, default the deadline), record it; returns the
        method's result object (None on error)."""
        t = self.now()
        try:
            out = fn()
        except Exception as exc:  # a failing stage must not lose the others' work
            self.runs.append(PortfolioRun(method, options, seed, None, None, self.now() - t,
                                          status=f"error: {type(exc).__name__}: {exc}"))
            return None
        seconds = self.now() - t
        P = out if isinstance(out, Partition) else out.partition
        P = Partition(P.labels, self.X)
        t1 = self.now()
        Q = self.improve(P, until)
        run = PortfolioRun(method, options, seed, P.sse(), Q.sse(), seconds,
                           self.now() - t1)
        self.runs.append(run)
        self.improved.append((Q.sse(), len(self.runs) - 1, Q))
        self.offer(Q, len(self.runs) - 1)
        key = stage or method
        self.stages[key] = self.stages.get(key, 0.0) + seconds + run.improve_seconds
        self.report(key, run=len(self.runs))
        return out


def portfolio(X: np.ndarray, k: int, *, time_limit: float = 60.0, seed: int | None = 0,
              methods=None, verbose: bool = False, initial=None) -> PortfolioResult:
    """Best-known partition within ``time_limit`` seconds: the strongest
    methods of seeds 001-004 in one budget, each result post-processed
    (split of groups ≥ 2k, seed 001 Proposition 2.2; local search; RCS, seed
    003 Algorithm 4), the best kept; the exact runs (``cg``: seed 001 §5,
    column generation with rounding; ``bp`` when registered) start from the
    best heuristic partition and may certify a lower bound.  See the module
    docstring for the stages and the budget rules.

    Parameters
    ----------
    X : (n, p) standardized data.  k : minimum group size.
    time_limit : seconds for the whole run (positive); stages that would not
        fit are skipped, the exact runs get the remaining time as their own
        ``time_limit``.
    seed : derives the seed of every randomized run (LKH tours, RCS); an
        integer, or None for fresh entropy (then not reproducible).
    methods : subset of :data:`PORTFOLIO_METHODS` (default: all, except
        that ``"cg"`` is left out when ``"bp"`` is registered: bp starts with
        the same column generation).
    verbose : throttled progress lines on stderr (elapsed, stage, best SSE/IL
        so far, lower bound); exact runs that take ``verbose`` get it too.
    initial : a k-feasible partition (labels or Partition) recorded as the
        first run (method "initial"), post-processed like the others, so the
        result is never worse than it and the exact runs may start from it.

    Returns a :class:`PortfolioResult`; ``summary()`` is JSON-able: best
    method, best SSE/IL, the per-run table (method, options, seed, SSE, SSE
    after improvement, seconds), the budget, and ``lower_bound``/``gap``/
    ``status`` when an exact run certified a bound.

    Cost: the sum of its stages, bounded by ``time_limit`` (plus one
    uninterruptible step).

    >>> import numpy as np
    >>> X = np.random.default_rng(0).normal(size=(30, 2))
    >>> r = portfolio(X, 3, time_limit=5, methods=["mdav-mhm", "vmdav"])
    >>> r.partition.is_feasible(3), int(r.partition.sizes.max()) <= 5, r.best_method
    (True, True, 'mdav-mhm')
    """
    from .methods import METHODS
    from .progress import Progress

    X = as_rows(X)
    n = X.shape[0]
    k = check_k(k, n)
    if (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
            or not math.isfinite(time_limit) or time_limit <= 0):
        raise ParameterError(f"time_limit must be a positive number of seconds, got {time_limit!r}")
    if seed is None:
        seed = int(np.random.SeedSequence().entropy % 2**63)
    elif isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError(f"seed must be a non-negative integer or None, got {seed!r}")
    seed = int(seed)
    chosen = _check_methods(methods)
    if "bp" in chosen and "bp" not in METHODS:
        chosen.remove("bp")
    if methods is None and "bp" in chosen:
        # bp's root is cg's column generation (same node solver) followed by cuts,
        # gap closing and a tree: by default give it the whole exact budget
        chosen.remove("cg")
    exact = [m for m in chosen if m in EXACT_METHODS]
    R = _Run(X, k, seed, float(time_limit), Progress("portfolio", enabled=verbose))
    reserve = min(max(1.0, POLISH_SHARE * time_limit), 0.5 * time_limit)
    if exact:
        heur_until = R.t0 + HEURISTIC_SHARE * time_limit
        search_until = R.t0 + SEARCH_SHARE * time_limit
    else:
        heur_until = R.t0 + (1.0 - SEARCH_SHARE) * (time_limit - reserve)
        search_until = R.deadline - reserve
    R.report("start", n=n, k=k, time_limit=float(time_limit))
    if initial is not None:       # the user's partition is the first run (issue 23)
        p0 = Partition(np.asarray(getattr(initial, "labels", initial)), X)
        if not p0.is_feasible(k):
            raise ParameterError(f"the initial partition has a group smaller than k = {k}")
        R.run("initial", lambda: p0, options={}, stage="initial")

    _heuristics(R, chosen, heur_until)
    if R.best is None:   # every stage skipped or failed: MDAV-MHM regardless of the clock
        from .heuristics.paths import mdav_mhm

        R.run("mdav-mhm", lambda: mdav_mhm(X, k), options={}, stage="fallback")
        if R.best is None:
            raise RuntimeError("every portfolio stage failed: "
                               + "; ".join(f"{r.method}: {r.status}" for r in R.runs))
    searches = _searches(R, search_until)
    if exact:
        _exact(R, exact, reserve, verbose)
    polish = {"skipped": "optimal"} if R.status_optimal() else _polish(R)
    from .refine import split_large_groups

    final = split_large_groups(X, R.best, k)
    R.offer(final, R.best_run, "split")
    seconds = R.now() - R.t0
    R.progress.done(stage="done", best_sse=R.best_sse, best_il=R.best.il(),
                    lower_bound=R.lower_bound)
    return PortfolioResult(partition=R.best, best_method=R.best_method, best_run=R.best_run,
                           best_steps=R.best_steps,
                           runs=R.runs, lower_bound=R.lower_bound,
                           bound_method=R.bound_method, exact_status=R.exact_status,
                           time_limit=float(time_limit), seconds=seconds, seed=seed,
                           stages=R.stages, skipped=R.skipped,
                           time_limited=R.time_limited, searches=searches, polish=polish)


def _estimate(R: _Run, *methods) -> float | None:
    """Longest measured duration (method + improvement) of runs of ``methods``."""
    times = [r.seconds + r.improve_seconds for r in R.runs if r.method in methods]
    return max(times) if times else None


def _fits(R: _Run, until: float, estimate: float | None) -> bool:
    left = R.left(until)
    return left > 0 and (estimate is None or estimate <= left)


def _heuristics(R: _Run, chosen: list[str], until: float) -> None:
    from .heuristics.paths import mdav_mhm
    from .heuristics.vmdav import vmdav
    from .tsp import elkai_available
    from .tsp_micro import compress, hm2_micro, mdav_lk_mhm

    X, k = R.X, R.k
    tour = "lkh" if elkai_available() else "lk"

    def go(label, estimate=None) -> bool:   # may the next heuristic run start?
        if R.status_optimal():
            return False
        if not _fits(R, until, estimate):
            R.skip(label, "heuristic budget used")
            return False
        return True

    # MDAV (and V-MDAV) cost O(n²·p/k) with no deadline inside: when that would not
    # fit, a partition in O(n·p + k·n) first (MHM along the first principal direction)
    mdav_est = MDAV_SECONDS * X.shape[0] ** 2 * X.shape[1] / k
    if mdav_est > R.left(until):   # the clock decides: the result says time_limited
        R.time_limited = True
        R.run("pca-mhm", lambda: _pca_mhm(X, k), options={}, until=until)
    if "mdav-mhm" in chosen and go("mdav-mhm", mdav_est):
        R.run("mdav-mhm", lambda: mdav_mhm(X, k), options={}, until=until)
    if "vmdav" in chosen and go("vmdav", mdav_est):
        R.run("vmdav", lambda: vmdav(X, k, gamma=0.2), options={"gamma": 0.2}, until=until)

    def limit():   # the method's own time limit: the end of the heuristic stage
        return max(R.left(until), 0.01)

    if "mdav-lk-mhm" in chosen and go("mdav-lk-mhm"):
        R.run("mdav-lk-mhm", lambda: mdav_lk_mhm(X, k, time_limit=limit()),
              options={"search": "lk"}, until=until)
    if "compress" in chosen:
        for i, c in enumerate(COMPRESSION_RATIOS):
            c = min(c, X.shape[0])
            est = _estimate(R, "compress")
            est = (_tour_estimate(tour, -(-X.shape[0] // c)) if est is None
                   else est * (COMPRESSION_RATIOS[0] / c) ** 2)
            if not R.fits_memory("compress", {"c": c, "tour": tour}) \
                    or not go(f"compress c={c}", est):
                continue
            s = _child_seed(R.seed, "compress", i)
            R.run("compress", lambda c=c, s=s: compress(X, k, c=c, tour=tour, seed=s,
                                                        time_limit=limit()),
                  options={"c": c, "tour": tour}, seed=s, until=until)
    for i, name in enumerate(m for m in chosen if m not in PORTFOLIO_METHODS):
        if go(name):       # plug-in methods (issue 23), output validated by mipagg.plugins
            _plugin_run(R, name, i, until)
    if "tsp-mhm" in chosen and R.fits_memory("tsp-mhm", {"tour": tour}):
        est = _estimate(R, "tsp-mhm")
        if est is None:   # a tour over n points ~ (n / (n/2))² the tour over the c = 2 centroids
            c2 = [r for r in R.runs if r.method == "compress" and r.options.get("c") == 2]
            est = (3.0 * (c2[0].seconds + c2[0].improve_seconds) if c2
                   else _tour_estimate(tour, X.shape[0]))
        for i in range(TSP_REPEATS):
            if not go(f"tsp-mhm repeats {i + 1}..{TSP_REPEATS}", est):
                break
            s = _child_seed(R.seed, "tsp-mhm", i)
            R.run("tsp-mhm", lambda s=s: hm2_micro(X, k, tour=tour, seed=s, time_limit=limit()),
                  options={"tour": tour, "repeat": i}, seed=s, until=until)
            est = _estimate(R, "tsp-mhm")


def _pca_mhm(X: np.ndarray, k: int) -> Partition:
    """MHM (seed 004 §4.1) along the first principal direction: a k-partition
    in O(n·p + k·n), the portfolio's start when MDAV would not fit its budget."""
    from .univariate import mhm

    Xc = X - X.mean(axis=0)
    v = np.linalg.svd(Xc[:: max(1, X.shape[0] // 5000)], full_matrices=False)[2][0]
    return mhm(X, np.argsort(Xc @ v, kind="stable"), k)


def _tour_estimate(tour: str, m: int) -> float | None:
    """A priori seconds of one LKH tour over m points (Census, m = 1 080:
    about 2.3 s, docs/bench/tours.md; quadratic in m), before any
    measurement; None for the other tours (they stop at the deadline)."""
    return 2.3 * (m / 1080.0) ** 2 if tour == "lkh" else None


def _plugin_run(R: _Run, name: str, index: int, until: float) -> None:
    """One run of a plug-in method: seeded, and limited to the heuristic budget
    left when it takes ``seed`` / ``time_limit``."""
    from .methods import get_method

    spec = get_method(name)
    fn, accepted = spec.load(), spec.options()
    kwargs, s = {}, None
    if "seed" in accepted:
        s = kwargs["seed"] = _child_seed(R.seed, "plugin", index)
    if "time_limit" in accepted:
        kwargs["time_limit"] = round(max(0.5, R.left(until)), 3)
    R.run(name, lambda: fn(R.X, R.k, **kwargs),
          options={o: v for o, v in kwargs.items() if o != "seed"}, seed=s, until=until)


def _accepts(fn, name: str) -> bool:
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def _exact(R: _Run, exact: list[str], reserve: float, verbose: bool) -> None:
    from .methods import get_method

    for j, name in enumerate(exact):
        if R.status_optimal():
            R.skipped.append({"method": name, "reason": "already optimal"})
            continue
        if not R.fits_memory(name):
            continue
        share = 0.5 if name == "cg" and "bp" in exact[j + 1:] else 1.0
        budget = (R.left() - reserve) * share
        if budget < 0.5:
            R.skip(name, "no time left")
            continue
        setup = EXACT_SETUP_SECONDS * R.X.shape[0] ** 2
        if setup > budget:   # distances, V-MDAV, rounding's pair order: no deadline inside
            R.skip(name, f"its set-up alone takes about {setup:.0f} s at n = {R.X.shape[0]}, "
                   f"more than the {budget:.1f} s left")
            continue
        fn = get_method(name).load()
        kwargs = {"time_limit": budget}
        if R.best is not None and _accepts(fn, "initial"):
            kwargs["initial"] = R.best
        if _accepts(fn, "verbose"):
            kwargs["verbose"] = verbose
        s = None
        if _accepts(fn, "seed"):
            s = kwargs["seed"] = _child_seed(R.seed, "exact", j)
        R.report(name, force=True, time_limit=budget)
        out = R.run(name, lambda: fn(R.X, R.k, **kwargs),
                    options={"time_limit": round(budget, 3),
                             "initial": "initial" in kwargs}, seed=s)
        if out is None:
            continue
        run = R.runs[-1]
        lb = getattr(out, "lower_bound", None)
        status = getattr(out, "status", None)
        run.details = {"lower_bound": lb, "exact_status": status}
        if status == "time_limit":
            R.time_limited = True
        if lb is not None:
            R.certify(float(lb), name, status)


def _search(R: _Run, P: Partition, run_index: int, seed_index: int, seconds: float,
            stage: str = "search") -> dict:
    """One :func:`mipagg.improve.merge_split_search` from ``P`` (at most
    ``seconds``); offers the result; returns a JSON-able record."""
    from .improve import merge_split_search

    t = R.now()
    s = _child_seed(R.seed, "search", seed_index)
    res = merge_split_search(R.X, P, R.k, seed=s, time_limit=max(seconds, 1e-3))
    if res.time_limited:
        R.time_limited = True
    method = R.runs[run_index].method
    R.offer(res.partition, run_index, "search")
    dt = R.now() - t
    if stage == "search":   # the polish stage accounts for its own time
        R.stages["search"] = R.stages.get("search", 0.0) + dt
    R.report(stage, start=f"run {run_index} ({method})")
    return {"start_run": run_index, "start_method": method, "seed": s, "sse_start": P.sse(),
            "sse": res.partition.sse(), "moves": res.moves, "accepted": res.accepted, "seconds": dt,
            "time_limited": res.time_limited}


def _searches(R: _Run, until: float) -> list:
    """Merge-and-resplit searches from the best improved partition of each of
    the :data:`SEARCH_STARTS` best methods, best first; each may use all the
    time left up to ``until`` (a search stops earlier when it converges)."""
    starts, seen = [], set()
    for sse, i, Q in sorted(R.improved, key=lambda t: (t[0], t[1])):
        method = R.runs[i].method
        if method not in seen:
            seen.add(method)
            starts.append((i, Q))
        if len(starts) == SEARCH_STARTS:
            break
    out = []
    for j, (i, Q) in enumerate(starts):   # best start first, with all the time left
        if R.status_optimal():
            break
        left = R.left(until)
        if left <= 0.05:
            R.skip(f"search from run {i}", "search budget used")
            continue
        out.append(_search(R, Q, i, j, left))
    return out


def _polish(R: _Run) -> dict:
    """Rounds of an RCS restart (probability 0.01, up to 20 events, seeded)
    + local search on the best partition, then a merge-and-resplit search
    from the best, until the deadline, :data:`POLISH_ROUNDS` rounds, or two
    rounds in a row without improvement."""
    from .improve import improve_partition, random_cluster_shuffling

    X, k = R.X, R.k
    info = {"rounds": [], "sse_start": R.best_sse}
    t = R.now()
    idle = 0
    for i in range(POLISH_ROUNDS):
        if R.status_optimal():
            break
        if R.left() <= 0.05:
            R.skip(f"polish rounds {i + 1}..{POLISH_ROUNDS}", "no time left")
            break
        before = R.best_sse
        s = _child_seed(R.seed, "polish", i)
        Q = random_cluster_shuffling(X, R.best, k, probability=0.01, max_events=20, seed=s,
                                     time_limit=R.clock)
        Q = improve_partition(X, Q, k, how="local", time_limit=R.clock)
        if R.clock.hit:
            R.time_limited = True
        R.offer(Q, R.best_run, "rcs")
        record = {"rcs_seed": s, "sse_rcs": R.best_sse}
        if R.left() > 0.05:
            record["search"] = _search(R, R.best, R.best_run, SEARCH_STARTS + i, R.left(),
                                       stage="polish")
        info["rounds"].append(record)
        R.report("polish", round=i + 1)
        idle = idle + 1 if not R.best_sse < before else 0
        if idle >= 2:
            break
    info.update(sse=R.best_sse, seconds=R.now() - t)
    R.stages["polish"] = info["seconds"]
    return info
