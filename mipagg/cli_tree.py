"""``mipagg tree CHECKPOINT``: what a saved ``bp`` tree holds and how far it
is from the end (:func:`mipagg.exact.checkpoint.summary`; issue 22)."""

from __future__ import annotations

import json

from .progress import format_duration


def add_subcommand(sub) -> None:
    tree = sub.add_parser(
        "tree", help="what a bp checkpoint (--checkpoint) holds: incumbent, certified bound, "
        "gap, open nodes, tree-size estimate, the options of the run that wrote it")
    tree.add_argument("checkpoint", nargs="+",
                      help="a .npz file written by bp's --checkpoint (with --combine: the "
                      "parts of one split)")
    tree.add_argument("--data", help="the CSV file the tree was made from: checked against the "
                      "checkpoint's fingerprint; adds the IL of the incumbent and of the bound")
    tree.add_argument("--columns", help="comma-separated key columns of --data (default: all)")
    tree.add_argument("--labels", metavar="LABELS.csv",
                      help="with --data: price this partition's groups at the root's duals "
                      "instead of the checkpoint's incumbent (header 'group', e.g. from "
                      "'mipagg run --labels')")
    tree.add_argument("--top", type=int, default=5, metavar="N",
                      help="with --data: the N groups of largest reduced cost (default 5)")
    tree.add_argument("--sample", type=int, metavar="M",
                      help="with --data: resume M open nodes drawn at random, each subtree "
                      "alone until closed, and estimate the nodes and time the tree has left "
                      "from them (mipagg.exact.treesample)")
    tree.add_argument("--seed", type=int, default=None,
                      help="seed of --sample (default 0) and of --split (default: by bound)")
    tree.add_argument("--sample-time", type=float, default=600.0, metavar="SECONDS",
                      help="time limit of each sampled subtree (default 600); one stopped by "
                      "it makes the estimates lower bounds")
    tree.add_argument("--option", dest="options", action="append", default=[],
                      metavar="KEY=VALUE",
                      help="with --sample: a bp option of the subtrees' runs, repeatable "
                      "(default: the options of the run that wrote the checkpoint)")
    tree.add_argument("--split", type=int, metavar="N",
                      help="write the open nodes in N part checkpoints (--out), each to be "
                      "resumed on its own (bp --resume PART); dealt out by bound, or at random "
                      "with --seed (mipagg.exact.treeparts)")
    tree.add_argument("--keep-bases", type=int, metavar="N",
                      help="write a copy (--out) that keeps the master bases of only the N "
                      "open nodes of least bound, the rest unchanged: a smaller file that "
                      "resumes the same tree (mipagg.exact.treeparts.thin)")
    tree.add_argument("--out", metavar="PREFIX",
                      help="with --split: the parts are PREFIX-1ofN.npz ... PREFIX-NofN.npz; "
                      "with --keep-bases: the file written")
    tree.add_argument("--combine", action="store_true",
                      help="what the parts of a split prove together: give the last "
                      "checkpoint of each part's run (or the part itself), or of each side of "
                      "a split on the number of groups (bp-split, --max-groups/--max-size)")
    tree.add_argument("--json", action="store_true", help="print one JSON object")
    tree.add_argument("--quiet", action="store_true",
                      help="no progress line per sampled subtree on stderr")
    tree.set_defaults(func=_cmd_tree)


def _num(v, digits=4) -> str:
    return "–" if v is None else f"{v:.{digits}f}"


def _cut_off(s: dict) -> str:
    n = s["cut_off_nodes"]
    return f" ({n:,} more listed, cut off by the incumbent)" if n else ""


def _tree_lines(s: dict) -> list[str]:
    """Bound, gap, progress and open nodes of a tree with open nodes."""
    est = ("none yet (no subtree finished)" if s["tree_estimate"] is None
           else f"{s['tree_estimate']:,} nodes")
    if s["seconds_left"] is not None:
        est += (f", {format_duration(s['seconds_left'])} more at the pace of the run that "
                f"wrote it ({s['nodes_per_second']:.3g} nodes/s)")
    if s.get("bound_trend_nodes") is not None:
        est += f"; {s['bound_trend_nodes']:,} more nodes to the cutoff at the bound's recent pace"
        if s["bound_trend_seconds_left"] is not None:
            est += f" ({format_duration(s['bound_trend_seconds_left'])})"
    closed = "–" if s["gap_closed"] is None else f"{100 * s['gap_closed']:.1f} %"
    b, d = s["open_bound_quantiles"], s["open_depth_quantiles"]
    out = [f"certified bound {_num(s['lower_bound'])} (least open bound), gap {s['gap']:.4f} %; "
           f"the tree has closed {closed} of the root gap",
           f"open {s['open_nodes']:,} nodes{_cut_off(s)}; tree-size estimate {est}",
           "open bounds: min {min:.4f}, 10 % {q10:.4f}, median {median:.4f}, 90 % {q90:.4f}, "
           "max {max:.4f}; summed gap to the cutoff {gap:.4f}".format(**b, gap=s["open_gap"]),
           "open depths: min {min:.0f}, median {median:.0f}, max {max:.0f}".format(**d)]
    if "il" in s:
        out.append(f"IL {s['il']:.6f} %, bound {s['il_bound']:.6f} % (SST {s['sst']:.4f})")
    return out


def _closed_line(s: dict) -> str:
    """What a closed tree proves: no partition is below the least bound of the
    nodes cut off, so the incumbent is optimal within its distance to it."""
    head = "no open node: the tree is closed"
    pb, ub = s.get("pruned_bound"), s["incumbent_sse"]
    if pb is None:          # nothing cut off by bound, or a checkpoint without it
        return f"{head}, the incumbent optimal (within the run's gap tolerance)"
    if pb >= ub:
        return f"{head}; every node cut off had a bound at or above the incumbent: optimal"
    return (f"{head}; the least bound of the nodes cut off is {_num(pb, 6)}: no partition is "
            f"below it, and the incumbent is at most {ub - pb:.3g} above it "
            f"({(ub - pb) / ub:.2g} relative; gap_tol {s['gap_tol']:g})")


def _bases_line(s: dict) -> str:
    """How many listed nodes keep a master basis (their parent's, or a relative's)."""
    listed = s["open_nodes"] + s["cut_off_nodes"]
    line = f"open nodes with a saved master basis: {s['node_bases']:,} of {listed:,}"
    if s["node_bases"] < listed:
        line += ("; a resumed run starts the others from their nearest relative's "
                 "(bp's checkpoint_bases keeps more)")
    t = s.get("thinned")
    if t:
        line += (f"; thinned from {t['source_file']} (--keep-bases {t['keep']:,}; "
                 f"{t['node_bases'][0]:,} nodes had one)")
    return line


def _sizes_line(s: dict) -> str:
    """Size fixing: the sizes the nodes left out, and which the open ones exclude."""
    by_size = ", ".join(f"size {eta}: {c:,}" for eta, c in s["open_sizes_out"].items())
    return (f"size fixing: {s['node_fixed_sizes']:,} sizes excluded at nodes; open nodes "
            f"excluding {by_size or 'none'}")


def _lines(s: dict) -> list[str]:
    """The summary as text lines."""
    out = [f"n = {s['n']}, k = {s['k']}; written by mipagg {s['version']} at {s['saved']}"]
    if s.get("part"):
        out.append(_part_line(s["part"]))
    out += [f"incumbent SSE {_num(s['incumbent_sse'])}; root bound {_num(s['root_lp_bound'])} "
            f"before cuts, {_num(s['root_cut_bound'])} after",
            f"nodes processed {s['nodes']:,} (deepest {s['max_depth']})"]
    if s.get("restriction"):            # one side of a split on the number of groups
        out.append(f"a restricted tree: its bounds hold for the {s['restriction']} only")
    if s["open_nodes"]:
        out += _tree_lines(s)
    else:
        out.append(_closed_line(s))
        if "il" in s:
            out.append(f"IL {s['il']:.6f} % (SST {s['sst']:.4f})")
    rows = ", ".join(f"{c} on {r} rows" for r, c in s["cuts_by_rows"].items()) or "none"
    retired = f", {s['retired_cuts']} of those left out" if s["retired_cuts"] else ""
    count = "" if s.get("count_row") is None else \
        f"; the count row: at most {s['count_row']} groups"
    out.append(f"columns {s['columns']:,}{count}; cuts {s['cuts']} ({rows}); {s['node_cuts']} found "
               f"at nodes{retired}; pairs fixed: {s['fixed_pairs']} at the root, "
               f"{s['node_fixed_pairs']} at nodes")
    failed = "" if s["node_closings_timed_out"] is None else \
        (f", {s['node_closings_timed_out']} stopped by their time limit, "
         f"{s['node_closings_too_large']} with too many clusters")
    out.append(f"node gap closings {s['node_closings']} ({s['node_partial_closings']} partial, "
               f"{s['node_closing_incumbents']} found a better partition{failed})"
               + (f"; {s['node_closings_skipped']:,} nodes turned down as not worth a closing "
                  "(node_close_cost)" if s["node_closings_skipped"] else ""))
    if s.get("node_fixed_sizes") or s.get("open_sizes_out"):
        out.append(_sizes_line(s))
    if s.get("node_bases"):
        out.append(_bases_line(s))
    if s.get("pseudocost_pairs"):
        out.append(f"reliability branching's pseudocosts: {s['pseudocost_pairs']:,} pairs, "
                   f"{s['pseudocost_probes']:,} probes")
    if s.get("gap_by_group"):
        out += _share_lines(s["gap_by_group"])
    if s.get("sample"):
        out += _sample_lines(s["sample"])
    opts = " ".join(f"{k}={v if isinstance(v, str) else json.dumps(v)}"
                    for k, v in s["options"].items() if k != "branching")
    if s.get("branching"):                  # on its own line, default or not
        out.append(f"branching rule {s['branching']}")
    out.append(f"options (not defaults): {opts or 'none'}")
    return out


def _share_lines(g: dict) -> list[str]:
    """Where the gap lies (:mod:`mipagg.exact.gapshare`) as text lines."""
    share = "–" if g["top_share"] is None else f"{100 * g['top_share']:.0f} %"
    tops = ", ".join(f"{t['group']} ({t['reduced_cost']:.4f})" for t in g["top_groups"])
    return [f"at the root's duals ({g['dual_objective']:.4f}), the {g['groups']} groups of "
            f"{g['partition']} (SSE {g['sse']:.4f}) carry a gap of {g['gap']:.4f}: "
            f"{len(g['top_groups'])} groups {share} of it, the unfilled cuts "
            f"{g['cut_slack']:.4f}",
            f"groups of largest reduced cost: {tops}"]


def _with_il(s: dict, ckpt, data: str, columns: str | None):
    """``s`` with the SST of ``data`` and the IL of the incumbent and of the
    bound, once the checkpoint's fingerprint matches the standardized file;
    and the standardized records."""
    from .errors import DataError
    from .exact import checkpoint
    from .instance import read_csv
    from .partition import Partition

    X = read_csv(data, columns=columns.split(",") if columns else None).X
    if checkpoint.fingerprint(X, s["k"]) != s["fingerprint"]:
        why = f"n = {X.shape[0]}" if X.shape[0] != s["n"] else "other values or columns"
        raise DataError(f"the checkpoint (n = {s['n']}, k = {s['k']}) was not made from "
                        f"{data!r} ({why})")
    sst = Partition(ckpt.labels, X).sst()
    lb = s["lower_bound"]
    return {**s, "sst": sst, "il": 100 * s["incumbent_sse"] / sst,
            "il_bound": None if lb is None else 100 * lb / sst}, X


def _gap_by_group(ckpt, X, labels_path: str | None, top: int) -> dict | None:
    """The groups of the incumbent (or of ``labels_path``) priced at the
    root's certified duals (:mod:`mipagg.exact.gapshare`); None when the
    checkpoint holds no root duals."""
    from .exact.gapshare import gap_shares
    from .partition import Partition
    from .verify import LabelsError, read_labels

    stop = ckpt.root_stop
    if stop.duals is None:
        return None
    labels = ckpt.labels
    if labels_path is not None:
        labels = read_labels(labels_path)
        if len(labels) != X.shape[0]:
            raise LabelsError(f"{labels_path}: {len(labels)} labels for {X.shape[0]} records")
    k = int(ckpt.meta["k"])
    if not Partition(labels, X).is_feasible(k):
        raise LabelsError(f"{labels_path or 'the incumbent'}: a group has fewer than "
                          f"k = {k} records")
    # the root's duals price the root's cuts, which come first (node cuts follow)
    cuts = () if stop.cut_duals is None else ckpt.cuts[:len(stop.cut_duals)]
    shares = gap_shares(X, labels, stop.duals, cuts, stop.cut_duals)
    return {"partition": labels_path or "incumbent", "sse": shares.sse,
            **shares.summary(top)}


def _sample_lines(e: dict) -> list[str]:
    """The sampled estimate of the work left (:mod:`mipagg.exact.treesample`)."""
    subs = e["subtrees"]
    nodes, secs = sum(t["nodes"] for t in subs), sum(t["seconds"] for t in subs)
    stopped = sum(not t["closed"] for t in subs)
    head = (f"sampled {e['sample']:,} of the {e['open_nodes']:,} open subtrees (seed "
            f"{e['seed']}), each resumed alone: {nodes:,} nodes, {format_duration(secs)}")
    head += (f"; {stopped} stopped by their time limit, so the estimates below are lower bounds"
             if stopped else ", every one closed")

    def pm(v, se, fmt):
        return fmt(v) + ("" if se is None else f" ± {fmt(se)}")

    out = [head, "work left, estimated from the sample: "
           + pm(e["nodes_left"], e["nodes_left_se"], lambda v: f"{v:,.0f}") + " nodes, "
           + pm(e["seconds_left"], e["seconds_left_se"], format_duration)
           + " with the subtrees run apart (± one standard error)"]
    if e["better_partition"]:
        best = min(t["sse"] for t in subs)
        out.append(f"a sampled subtree holds a partition below the incumbent (SSE {best:.6f}): "
                   "the checkpoint's incumbent is not optimal")
    return out


def _sample(args, ckpt, X) -> dict:
    """``--sample``: the sampled estimate of the work left, as a dict."""
    import sys

    from .exact import treesample
    from .exact.settings import BPSettings, parse_options

    options = parse_options(args.options, BPSettings,
                            reserved=("time_limit", "resume", "checkpoint"), flag="--option")

    def progress(j, t):
        if not args.quiet:
            print(f"mipagg tree: subtree {j + 1}/{args.sample} (node {t.node}, depth {t.depth}): "
                  f"{'closed' if t.closed else 'not closed'}, {t.nodes} nodes, "
                  f"{t.seconds:.1f} s", file=sys.stderr, flush=True)

    seed = 0 if args.seed is None else args.seed
    est = treesample.sample_subtrees(X, int(ckpt.meta["k"]), args.checkpoint, args.sample,
                                     seed=seed, time_limit=args.sample_time, options=options,
                                     progress=progress)
    return est.summary()


def _part_line(part: dict) -> str:
    """What a part checkpoint is (:mod:`mipagg.exact.treeparts`)."""
    what = (f"part {part['index']} of {part['of']}" if part.get("index") is not None
            else "a sample")
    return (f"{what} of {part['source_file']} (id {part['source']}, "
            f"{part['source_open_nodes']:,} open nodes): its bound holds for its own "
            f"{part['nodes']:,} subtrees only")


def _together_lines(head: str, rows, c: dict, unit: str, where: str) -> list[str]:
    """What checkpoints prove together: ``rows`` of (label, row), ``unit``
    "part" or "side", ``where`` the one holding the best incumbent."""
    out = [head]
    for label, r in rows:
        state = "closed" if r["closed"] else \
            f"{r['open_nodes']:,} open nodes, bound {_num(r['lower_bound'], 6)}"
        out.append(f"  {label} ({r['path']}): {state}; incumbent {_num(r['incumbent_sse'], 6)}")
    if c["proven"]:
        out.append(f"every {unit} is closed: the incumbent of {where} "
                   f"(SSE {c['incumbent_sse']:.6f}) is optimal")
    else:
        out.append(f"best incumbent SSE {c['incumbent_sse']:.6f} ({where}); "
                   f"certified bound {c['lower_bound']:.6f}, gap {c['gap']:.6f} %")
    return out


def _combine_lines(c: dict) -> list[str]:
    """``--combine`` of the parts of a split tree (:mod:`mipagg.exact.treeparts`)."""
    closed = sum(r["closed"] for r in c["rows"])
    return _together_lines(f"split {c['source']} in {c['parts']} parts: {closed} closed",
                           [(f"part {r['index']}", r) for r in c["rows"]], c, "part",
                           f"part {c['incumbent_part']}")


def _sides_lines(c: dict) -> list[str]:
    """``--combine`` of the sides of a split on the number of groups."""
    return _together_lines(f"split on the number of groups of n = {c['n']}, k = {c['k']}:",
                           [(r["restriction"], r) for r in c["rows"]], c, "side",
                           c["incumbent_path"])


def _cmd_rewrite(args) -> int:
    """--split, --combine or --keep-bases: checkpoints written or put together."""
    from .errors import ParameterError
    from .exact import treeparts

    if sum((args.split is not None, args.combine, args.keep_bases is not None)) > 1:
        raise ParameterError("give one of --split, --combine and --keep-bases")
    if args.keep_bases is not None:
        if len(args.checkpoint) != 1 or not args.out:
            raise ParameterError("--keep-bases takes one checkpoint and --out PATH")
        t = treeparts.thin(args.checkpoint[0], args.out, args.keep_bases)
        print(json.dumps({"out": args.out, **t}) if args.json else
              f"wrote {args.out}: bases of {t['node_bases'][1]} of the "
              f"{t['node_bases'][0]} open nodes that had one ({t['bases'][1]} distinct bases "
              f"of {t['bases'][0]})")
        return 0
    if args.combine:
        from .exact import checkpoint, countsplit

        if args.checkpoint and countsplit.side_class(checkpoint.load(args.checkpoint[0])):
            c = countsplit.combine_checkpoints(args.checkpoint)
            print(json.dumps(c) if args.json else "\n".join(_sides_lines(c)))
            return 0
        c = treeparts.combine(args.checkpoint)
        print(json.dumps(c) if args.json else "\n".join(_combine_lines(c)))
        return 0
    if len(args.checkpoint) != 1 or not args.out:
        raise ParameterError("--split takes one checkpoint and --out PREFIX")
    paths = treeparts.split(args.checkpoint[0], args.split, args.out, seed=args.seed)
    if args.json:
        print(json.dumps({"parts": [str(p) for p in paths]}))
    else:
        print(f"wrote {len(paths)} parts: " + ", ".join(map(str, paths)))
    return 0


def _cmd_tree(args) -> int:
    from .errors import ParameterError
    from .exact import checkpoint

    if args.split is not None or args.combine or args.keep_bases is not None:
        return _cmd_rewrite(args)
    if args.out:
        raise ParameterError("--out names the parts of --split or the file of --keep-bases")
    if len(args.checkpoint) != 1:
        raise ParameterError("give one checkpoint (several only with --combine)")
    args.checkpoint = args.checkpoint[0]
    if not args.data and (args.labels or args.sample is not None):
        raise ParameterError(f"{'--labels' if args.labels else '--sample'} needs --data "
                             "(the file the tree was made from)")
    if args.top < 1:
        raise ParameterError(f"--top must be at least 1, got {args.top}")
    if args.options and args.sample is None:
        raise ParameterError("--option sets the options of --sample's runs; give --sample")
    ckpt = checkpoint.load(args.checkpoint)
    s = checkpoint.summary(ckpt)
    if args.data:
        s, X = _with_il(s, ckpt, args.data, args.columns)
        s["gap_by_group"] = _gap_by_group(ckpt, X, args.labels, args.top)
        if args.sample is not None:
            s["sample"] = _sample(args, ckpt, X)
    if args.json:
        print(json.dumps({"checkpoint": args.checkpoint, **s}))
    else:
        print(f"checkpoint {args.checkpoint}")
        print("\n".join("  " + line for line in _lines(s)))
    return 0
