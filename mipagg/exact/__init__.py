"""Exact and LP-based methods: column generation for microaggregation (seed 001).

``master`` (restricted master LP, HiGHS), ``pricing`` (heuristic, enumeration,
ILP), ``rounding`` (SRH and MSTH), ``colgen`` (the loop and its result),
``bounds`` (certified Lagrangian bound), ``reference`` (brute-force checks).
Solvers are imported only inside this subpackage.
"""
