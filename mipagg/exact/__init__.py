"""Exact and LP-based methods: column generation for microaggregation (seed 001).

``master`` (restricted master LP (9) kept warm in HiGHS, integer master),
``pricing`` (heuristic, enumeration, ILP), ``rounding`` (SRH and MSTH),
``colgen`` (the MicroaggregationHeuristicMP loop as the object
``ColumnGeneration`` and its result), ``bp`` (``BranchAndPrice``: the same root,
then cuts, dive (``diving``), gap closing (at nodes: ``nodeclosing``) and the
tree), ``node`` (the column-generation loop of one node), ``settings`` (``CGSettings``, ``BPSettings``, ``StopCriterion``),
``rules`` (pluggable branching rules, node selection, cut families),
``gapclosing``, ``bounds`` (certified Lagrangian bound, gap (15), reduced-cost
column enumeration), ``reference`` (brute-force checks).  Solvers are imported
only inside this subpackage.  Entry points:
:func:`mipagg.exact.colgen.column_generation` (method ``cg``) and
:func:`mipagg.exact.bp.branch_and_price` (method ``bp``); how to extend them:
docs/developer.md.
"""
