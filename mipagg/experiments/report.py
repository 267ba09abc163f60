"""Tables in the layouts of the seeds, as Markdown, LaTeX or CSV.

Every function takes the DataFrame of a results store
(:meth:`~mipagg.experiments.store.ResultStore.to_dataframe`) and uses the runs
with status ``ok`` only; cells with no run read ``–``.

* :func:`gap_tables` -- seed 001 Tables 3–4: average gap of each heuristic of
  the column-generation method per (size, k, criterion), average time, and
  "Ex", the number of instances solved exactly (final gap 0).
* :func:`il_stats_table` -- seed 003 Tables 4.2–4.7 ((HM)²-Micro): IL average,
  σ, min and max over repeats, per method and k ("NA" for a single run).
* :func:`il_by_k_table` -- seed 003 Tables 3.4, 5.2–5.4, 6.1 and seed 004
  Table 5: IL per method and k ("mean ± σ" over several instances/seeds), with
  the path length column of Tables 5.2–5.4 when the runs report one.
* :func:`optimality_tables` -- seed 004 Tables 6–7: number of optimal
  partitions, maximum and average ± σ of SSE_method/SSE_opt.
* :func:`correlation_table` -- seed 003 Table 4.8: Pearson correlation
  between path length and SSE per data set and k.

σ is the sample standard deviation (ddof = 1); the seeds do not say which
one they use.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass, field

import numpy as np

from ..errors import ParameterError

__all__ = ["Table", "gap_tables", "il_stats_table", "il_by_k_table", "optimality_tables",
           "correlation_table", "TABLES", "render"]

DASH = "–"
CRITERIA_ORDER = ("consecutive", "random", "norm", "centroid")
# (column title, summary field prefix) of the heuristics inside the cg method (seed 001 §6)
CG_HEURISTICS = (("MDAV", "mdav"), ("V-MDAV", "vmdav"), ("MSTH", "msth"), ("SRH", "srh"))
EXACT_TOL = 1e-6  # gap (%) at or below which a run counts as solved exactly
OPT_RTOL = 1e-9   # SSE_method / SSE_opt at or below 1 + OPT_RTOL counts as optimal


@dataclass
class Table:
    """A rendered-cell table: ``columns`` (header), ``rows`` of strings.

    ``groups`` optionally spans a top header row over the columns as
    ``(label, span)`` pairs (LaTeX ``\\multicolumn``; in Markdown and CSV the
    group label prefixes the column name).  ``align`` is "l" or "r" per column.
    """

    title: str
    columns: list[str]
    rows: list[list[str]]
    align: str = ""
    groups: list[tuple[str, int]] | None = None
    notes: list[str] = field(default_factory=list)

    def __post_init__(self):
        if not self.align:
            self.align = "l" + "r" * (len(self.columns) - 1)

    def flat_columns(self) -> list[str]:
        if not self.groups:
            return list(self.columns)
        out, i = [], 0
        for label, span in self.groups:
            for c in self.columns[i:i + span]:
                out.append(f"{label} {c}".strip())
            i += span
        return out

    def to_markdown(self) -> str:
        cols = self.flat_columns()
        lines = [f"**{self.title}**", "", "| " + " | ".join(cols) + " |",
                 "|" + "|".join("---:" if a == "r" else ":---" for a in self.align) + "|"]
        lines += ["| " + " | ".join(r) + " |" for r in self.rows]
        lines += [""] + [f"{n}" for n in self.notes] if self.notes else []
        return "\n".join(lines) + "\n"

    def to_latex(self) -> str:
        esc = _latex_escape
        lines = ["\\begin{table}[ht]", "\\centering", f"\\caption{{{esc(self.title)}}}",
                 f"\\begin{{tabular}}{{{self.align}}}", "\\toprule"]
        if self.groups:
            cells, rules, i = [], [], 1
            for label, span in self.groups:
                if label:
                    cells.append(f"\\multicolumn{{{span}}}{{c}}{{{esc(label)}}}")
                    rules.append(f"\\cmidrule(lr){{{i}-{i + span - 1}}}")
                else:
                    cells += [""] * span
                i += span
            lines.append(" & ".join(cells) + " \\\\")
            lines.append(" ".join(rules))
        lines.append(" & ".join(esc(c) for c in self.columns) + " \\\\")
        lines.append("\\midrule")
        lines += [" & ".join(esc(c) for c in r) + " \\\\" for r in self.rows]
        lines += ["\\bottomrule", "\\end{tabular}", "\\end{table}"]
        return "\n".join(lines) + "\n"

    def to_csv(self) -> str:
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(self.flat_columns())
        w.writerows(self.rows)
        return buf.getvalue()

    def render(self, fmt: str = "md") -> str:
        try:
            return {"md": self.to_markdown, "markdown": self.to_markdown,
                    "latex": self.to_latex, "tex": self.to_latex, "csv": self.to_csv}[fmt]()
        except KeyError:
            raise ParameterError(f"unknown table format {fmt!r}; use md, latex or csv") from None


def _latex_escape(s: str) -> str:
    for a, b in (("\\", "\\textbackslash{}"), ("&", "\\&"), ("%", "\\%"), ("_", "\\_"),
                 ("#", "\\#"), ("±", "$\\pm$"), ("σ", "$\\sigma$"), ("–", "--")):
        s = s.replace(a, b)
    return s


def _num(x, digits: int) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return DASH
    return f"{x:.{digits}f}"


def _mean_sd(values, digits: int) -> str:
    v = np.asarray([x for x in values if x is not None and not math.isnan(x)], dtype=float)
    if v.size == 0:
        return DASH
    if v.size == 1:
        return _num(v[0], digits)
    return f"{_num(v.mean(), digits)} ± {_num(v.std(ddof=1), digits)}"


def successful_runs(df):
    """The runs with status ``ok`` (:class:`ParameterError` when there are none)."""
    if df is None or len(df) == 0:
        raise ParameterError("no runs in the results store")
    ok = df[df["status"] == "ok"]
    if ok.empty:
        raise ParameterError("no successful runs in the results store")
    return ok


def ordered(values, order=()) -> list:
    """Unique values: those of ``order`` first (in that order), then the rest in
    order of first appearance (the grid's order)."""
    seen = list(dict.fromkeys(v for v in values if v is not None))
    first = [o for o in order if o in seen]
    return first + [v for v in seen if v not in first]


def method_labels(df, methods=None) -> list[str]:
    """Method labels in the given order, else in order of first appearance."""
    present = list(dict.fromkeys(df["label"]))
    if methods is None:
        return present
    return [m for m in methods if m in present]


def k_values(ok, ks=None) -> list:
    """The given values of k, else every k of the runs, ascending."""
    return sorted(ok["k"].unique()) if ks is None else list(ks)


def _k_headers(ks) -> list[str]:
    return [f"k = {int(k)}" for k in ks]


def _column(df, name):
    return df[name] if name in df.columns else None


# ---------------------------------------------------------------- seed 001

def _heuristic_gaps(df, prefix: str) -> np.ndarray:
    """Gap (%) of one heuristic of the cg method, from ``gap_<h>`` or from
    ``sse_<h>`` and the lower bound (formula (15) of seed 001)."""
    gap = _column(df, f"gap_{prefix}")
    sse = _column(df, f"sse_{prefix}")
    out = np.full(len(df), np.nan)
    if gap is not None:
        out = gap.to_numpy(dtype=float, na_value=np.nan)
    if sse is not None:
        s = sse.to_numpy(dtype=float, na_value=np.nan)
        lb = df["lower_bound"].to_numpy(dtype=float, na_value=np.nan)
        with np.errstate(invalid="ignore", divide="ignore"):
            computed = np.where(s > 0, 100.0 * (s - lb) / s, np.where(s == 0, 0.0, np.nan))
        out = np.where(np.isnan(out), computed, out)
    return out


def _exact_count(cell) -> int:
    """Instances solved exactly: the method's ``exact`` flag (the master problem
    ended with an integral solution, seed 001's "Ex"), else final gap ≤ 1e-6 %."""
    if "exact" in cell.columns and cell["exact"].notna().any():
        return int(cell["exact"].fillna(False).astype(bool).sum())
    final = cell["gap"].to_numpy(dtype=float, na_value=np.nan)
    return int(np.sum(final <= EXACT_TOL))


def gap_tables(df, method: str = "cg", heuristics=CG_HEURISTICS, digits: int = 2) -> list[Table]:
    """Seed 001 Tables 3–4: one table per parent data set.

    Rows: (size, k, criterion); columns: average gap (%) of each heuristic
    over the instances of the cell, average seconds of the whole method, "Ex"
    (instances whose final gap is 0, i.e. solved exactly) and the number of
    instances averaged.  Ex uses the method's ``exact`` flag when it reports
    one, else a final gap of at most 1e-6 %.
    """
    ok = successful_runs(df)
    ok = ok[ok["method"] == method]
    if ok.empty:
        raise ParameterError(f"no successful {method!r} runs in the results store")
    bad = df[(df["method"] == method) & (df["status"] != "ok")]
    ok = ok.assign(**{f"_gap_{p}": _heuristic_gaps(ok, p) for _, p in heuristics})
    tables = []
    for parent in ordered(ok["parent"]):
        sub = ok[ok["parent"] == parent]
        rows = []
        for size in sorted(sub["size"].unique()):
            for k in sorted(sub["k"].unique()):
                for crit in ordered(sub["criterion"].fillna(DASH), CRITERIA_ORDER):
                    cell = sub[(sub["size"] == size) & (sub["k"] == k)
                               & (sub["criterion"].fillna(DASH) == crit)]
                    if cell.empty:
                        continue
                    gaps = [_num(cell[f"_gap_{p}"].mean(skipna=True)
                                 if cell[f"_gap_{p}"].notna().any() else None, digits)
                            for _, p in heuristics]
                    rows.append([str(int(size)), str(int(k)), crit, *gaps,
                                 _num(cell["seconds"].mean(), digits), str(_exact_count(cell)),
                                 str(len(cell))])
        lost = bad[bad["parent"] == parent]["status"].value_counts()
        notes = [f"Not in the averages: {', '.join(f'{c} run(s) {s}' for s, c in lost.items())}."
                 ] if len(lost) else []
        tables.append(Table(
            f"Gaps (%) of the heuristics with respect to the {method} lower bound on {parent} "
            "subsets (average over instances), time (s) and instances solved exactly (Ex)",
            ["n", "k", "criterion", *[h for h, _ in heuristics], "time (s)", "Ex", "inst."],
            rows, align="rrl" + "r" * (len(heuristics) + 3), notes=notes))
    return tables


# ---------------------------------------------------------------- seed 003

def il_stats_table(df, dataset: str | None = None, methods=None, ks=None,
                   digits: int = 4) -> Table:
    """Seed 003 Tables 4.2–4.7: IL average, σ, min, max over repeats per method and k."""
    ok = successful_runs(df)
    if dataset is None:
        dataset = ordered(ok["dataset"])[0]
    ok = ok[ok["dataset"] == dataset]
    ks = k_values(ok, ks)
    rows = []
    for label in method_labels(ok, methods):
        row = [label]
        for k in ks:
            il = ok[(ok["label"] == label) & (ok["k"] == k)]["il"].to_numpy(dtype=float)
            if il.size == 0:
                row += [DASH] * 4
            elif il.size == 1:
                row += [_num(il[0], digits), "NA", "NA", "NA"]
            else:
                row += [_num(x, digits) for x in (il.mean(), il.std(ddof=1), il.min(), il.max())]
        rows.append(row)
    return Table(f"Information loss (%) on {dataset}: average, σ, min and max over repeats",
                 ["Method"] + ["average", "σ", "min", "max"] * len(ks), rows,
                 groups=[("", 1)] + [(h, 4) for h in _k_headers(ks)])


def il_by_k_table(df, datasets=None, methods=None, ks=None, digits: int = 4,
                  path_field: str = "path_length") -> Table:
    """IL (%) per data set, method and k (seed 003 Tables 3.4, 5.2–5.4, 6.1;
    seed 004 Table 5).  A cell over several instances or seeds reads
    "mean ± σ"; a "Path length" column (mean) is added when runs report
    ``path_field``."""
    ok = successful_runs(df)
    datasets = ordered(ok["dataset"]) if datasets is None else list(datasets)
    ks = k_values(ok, ks)
    has_path = path_field in ok.columns and ok[path_field].notna().any()
    rows = []
    for ds in datasets:
        sub = ok[ok["dataset"] == ds]
        for label in method_labels(sub, methods):
            runs = sub[sub["label"] == label]
            row = [ds, label]
            if has_path:
                pl = runs[path_field].dropna()
                row.append(_num(float(pl.mean()), 2) if len(pl) else "N/A")
            row += [_mean_sd(runs[runs["k"] == k]["il"].tolist(), digits) for k in ks]
            rows.append(row)
    cols = ["Dataset", "Method"] + (["Path length"] if has_path else [])
    return Table("Information loss (%) by k", cols + _k_headers(ks), rows,
                 align="ll" + "r" * (len(cols) - 2 + len(ks)))


def runs_reporting(ok, field: str, methods=None):
    """The runs of ``methods`` (labels; default all) that report ``field``."""
    if methods is not None:
        ok = ok[ok["label"].isin(list(methods))]
    if field not in ok.columns or ok[field].isna().all():
        raise ParameterError(f"no run reports {field!r}")
    return ok[ok[field].notna()]


def pearson(x, y) -> float:
    """Pearson correlation of two series; NaN for fewer than 3 points or a constant."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size < 3 or x.std() == 0 or y.std() == 0:
        return math.nan
    return float(np.corrcoef(x, y)[0, 1])


def correlation_table(df, field: str = "path_length", methods=None, digits: int = 2) -> Table:
    """Seed 003 Table 4.8: Pearson correlation of ``field`` and SSE per data set
    and k, over the runs of ``methods`` (labels; default all) reporting ``field``."""
    ok = runs_reporting(successful_runs(df), field, methods)
    ks = k_values(ok)
    rows = []
    for ds in ordered(ok["dataset"]):
        row = [ds]
        for k in ks:
            cell = ok[(ok["dataset"] == ds) & (ok["k"] == k)]
            row.append(_num(pearson(cell[field], cell["sse"]), digits))
        rows.append(row)
    return Table(f"Pearson correlation between {field.replace('_', ' ')} and SSE",
                 ["Dataset"] + _k_headers(ks), rows)


# ---------------------------------------------------------------- seed 004

def optimality_tables(df, reference: str = "opt", by: str = "k", k: int | None = None,
                      methods=None, digits: int = 2) -> list[Table]:
    """Seed 004 Tables 6 (``by="k"``) and 7 (``by="p"``, ``k=3``).

    The runs of method label ``reference`` give SSE_opt per (instance, k);
    every other method's SSE is divided by it.  Three tables: the number of
    instances where the ratio is 1 (optimal partition found), the maximum
    ratio, and the average ratio ± σ.
    """
    if by not in ("k", "p", "n"):
        raise ParameterError(f"by must be 'k', 'p' or 'n', got {by!r}")
    ok = successful_runs(df)
    if k is not None:
        ok = ok[ok["k"] == k]
    ref = ok[ok["label"] == reference]
    if ref.empty:
        raise ParameterError(f"no successful runs of the reference {reference!r}; labels: "
                             f"{', '.join(method_labels(ok))}")
    opt = ref.groupby(["instance", "fingerprint", "k"])["sse"].min().rename("sse_opt")
    others = ok[ok["label"] != reference].join(opt, on=["instance", "fingerprint", "k"],
                                               how="inner")
    sse, best = others["sse"].to_numpy(float), others["sse_opt"].to_numpy(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(best > 0, sse / best, np.where(sse > 0, np.inf, 1.0))
    others = others.assign(ratio=ratio)
    labels = method_labels(others, methods)
    values = sorted(others[by].unique())
    count_rows, max_rows, avg_rows = [], [], []
    for v in values:
        at = others[others[by] == v]
        c, m, a = ([str(int(v))] for _ in range(3))
        for label in labels:
            r = at[at["label"] == label]["ratio"].to_numpy(float)
            c.append(str(int(np.sum(r <= 1 + OPT_RTOL))) if r.size else DASH)
            m.append(_num(float(r.max()), digits) if r.size else DASH)
            a.append(_mean_sd(r.tolist(), digits))
        c.append(str(int(at["instance"].nunique())))
        count_rows.append(c)
        max_rows.append(m)
        avg_rows.append(a)
    cols = [by] + labels
    sub = f" (k = {k})" if k is not None else ""
    return [Table(f"Number of optimal partitions (SSE_method / SSE_opt = 1){sub}",
                  cols + ["datasets"], count_rows),
            Table(f"Maximum SSE_method / SSE_opt{sub}", cols, max_rows),
            Table(f"Average SSE_method / SSE_opt ± σ{sub}", cols, avg_rows)]


# ---------------------------------------------------------------- dispatch

def _as_list(t):
    return t if isinstance(t, list) else [t]


TABLES = {
    "gaps": lambda df, **kw: gap_tables(df, **kw),
    "il-stats": lambda df, **kw: _as_list(il_stats_table(df, **kw)),
    "il-by-k": lambda df, **kw: _as_list(il_by_k_table(df, **kw)),
    "optimality": lambda df, **kw: optimality_tables(df, **kw),
    "correlation": lambda df, **kw: _as_list(correlation_table(df, **kw)),
}


def render(df, table: str, fmt: str = "md", **options) -> str:
    """Render the named table(s) (see :data:`TABLES`) in ``fmt``."""
    if table not in TABLES:
        raise ParameterError(f"unknown table {table!r}; choose from {', '.join(TABLES)}")
    tables = TABLES[table](df, **{a: v for a, v in options.items() if v is not None})
    return "\n".join(t.render(fmt) for t in tables)
