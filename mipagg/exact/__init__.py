"""Exact and LP-based methods: column generation for microaggregation (seed 001).

``master`` (restricted master LP (9) kept warm in HiGHS, integer master),
``pricing`` (heuristic, enumeration, ILP), ``rounding`` (SRH and MSTH),
``colgen`` (the MicroaggregationHeuristicMP loop and its result object),
``bounds`` (certified Lagrangian bound, gap (15), reduced-cost column
enumeration), ``reference`` (brute-force checks).  Solvers are imported only
inside this subpackage.  Entry point: :func:`mipagg.exact.colgen.column_generation`
(method ``cg``).
"""
