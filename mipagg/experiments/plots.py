"""Figures from a results store (matplotlib, Agg backend).

* :func:`il_boxplot` -- IL variability per method, one panel per k (seed 003
  Figures 4.2–4.25).
* :func:`tradeoff_plot` -- IL versus computing time per method, markers for
  k left to right (seed 003 Figure 5.5).
* :func:`path_sse_plot` -- path length versus SSE per method with the Pearson
  correlation, one panel per k (seed 003 section 4.4, Figures 4.26–4.29).

Each takes the DataFrame of :meth:`ResultStore.to_dataframe` and writes
``out`` (PNG, PDF or SVG by its suffix) atomically.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import ParameterError
from .report import k_values, method_labels, pearson, runs_reporting, successful_runs

__all__ = ["il_boxplot", "tradeoff_plot", "path_sse_plot", "PLOTS"]


def _pyplot():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def _select(df, dataset, k=None):
    ok = successful_runs(df)
    if dataset is None:
        dataset = list(dict.fromkeys(ok["dataset"]))[0]
    ok = ok[ok["dataset"] == dataset]
    if ok.empty:
        raise ParameterError(f"no successful runs on data set {dataset!r}")
    if k is not None:
        ok = ok[ok["k"] == k]
    return ok, dataset


def _panels(plt, count: int, width: float = 4.2, height: float = 3.6):
    cols = min(count, 2)
    rows = (count + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(width * cols, height * rows), squeeze=False)
    for ax in axes.flat[count:]:
        ax.set_visible(False)
    return fig, list(axes.flat[:count])


def _save(fig, plt, out) -> Path:
    """Write the figure atomically (:mod:`mipagg.outputs`): a failed or
    interrupted save leaves any previous file at ``out`` untouched.  The
    directory is created when missing."""
    from ..outputs import atomic_path

    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.tight_layout()
    try:
        with atomic_path(out) as tmp:
            fig.savefig(tmp, dpi=120, format=out.suffix.lstrip(".").lower() or "png")
    finally:
        plt.close(fig)
    return out


def il_boxplot(df, out, dataset: str | None = None, methods=None) -> Path:
    """Box plots of IL over repeats, one box per method, one panel per k."""
    plt = _pyplot()
    ok, dataset = _select(df, dataset)
    ks = k_values(ok)
    labels = method_labels(ok, methods)
    fig, axes = _panels(plt, len(ks), width=max(4.2, 0.55 * len(labels) + 1.5))
    for ax, k in zip(axes, ks):
        at = ok[ok["k"] == k]
        data = [at[at["label"] == m]["il"].to_numpy(float) for m in labels]
        ax.boxplot(data, showmeans=True)
        ax.set_xticks(range(1, len(labels) + 1), labels, rotation=45, ha="right", fontsize=8)
        ax.set_title(f"{dataset}, k = {int(k)}")
        ax.set_ylabel("information loss (%)")
        ax.grid(axis="y", alpha=0.3)
    return _save(fig, plt, out)


def tradeoff_plot(df, out, dataset: str | None = None, methods=None) -> Path:
    """Mean IL (x) versus mean time (y, log scale) per method; one marker per k."""
    plt = _pyplot()
    ok, dataset = _select(df, dataset)
    fig, ax = plt.subplots(figsize=(6.4, 4.6))
    for m in method_labels(ok, methods):
        at = ok[ok["label"] == m].groupby("k")[["il", "seconds"]].mean().sort_index()
        ax.plot(at["il"], at["seconds"].clip(lower=1e-6), marker="o", label=m)
    ax.set_yscale("log")
    ax.set_xlabel("information loss (%)")
    ax.set_ylabel("time (s)")
    ax.set_title(f"IL versus time on {dataset} (markers: k = "
                 f"{', '.join(str(int(k)) for k in k_values(ok))})")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return _save(fig, plt, out)


def path_sse_plot(df, out, dataset: str | None = None, field: str = "path_length",
                  methods=None) -> Path:
    """Scatter of path length versus SSE, one colour per method, one panel per k;
    panel titles give the Pearson correlation over all the plotted runs."""
    plt = _pyplot()
    ok, dataset = _select(df, dataset)
    ok = runs_reporting(ok, field, methods)
    ks = k_values(ok)
    fig, axes = _panels(plt, len(ks))
    for ax, k in zip(axes, ks):
        at = ok[ok["k"] == k]
        for m in method_labels(at, methods):
            sel = at[at["label"] == m]
            ax.scatter(sel[field], sel["sse"], s=14, alpha=0.75, label=m)
        ax.set_title(f"{dataset}, k = {int(k)}: Pearson r = {pearson(at[field], at['sse']):.2f}")
        ax.set_xlabel(field.replace("_", " "))
        ax.set_ylabel("SSE")
        ax.grid(alpha=0.3)
    axes[0].legend(fontsize=7)
    return _save(fig, plt, out)


PLOTS = {"box": il_boxplot, "tradeoff": tradeoff_plot, "path-sse": path_sse_plot}
