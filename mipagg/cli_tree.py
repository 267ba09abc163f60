"""``mipagg tree CHECKPOINT``: what a saved ``bp`` tree holds and how far it
is from the end (:func:`mipagg.exact.checkpoint.summary`; issue 22)."""

from __future__ import annotations

import json


def add_subcommand(sub) -> None:
    tree = sub.add_parser(
        "tree", help="what a bp checkpoint (--checkpoint) holds: incumbent, certified bound, "
        "gap, open nodes, tree-size estimate, the options of the run that wrote it")
    tree.add_argument("checkpoint", help="a .npz file written by bp's --checkpoint")
    tree.add_argument("--json", action="store_true", help="print one JSON object")
    tree.set_defaults(func=_cmd_tree)


def _num(v, digits=4) -> str:
    return "–" if v is None else f"{v:.{digits}f}"


def _lines(s: dict) -> list[str]:
    """The summary as text lines."""
    gap = "–" if s["gap"] is None else f"{s['gap']:.4f} %"
    closed = "–" if s["gap_closed"] is None else f"{100 * s['gap_closed']:.1f} %"
    est = ("none yet (no subtree finished)" if s["tree_estimate"] is None
           else f"{s['tree_estimate']:,} nodes")
    out = [f"n = {s['n']}, k = {s['k']}; written by mipagg {s['version']} at {s['saved']}",
           f"incumbent SSE {_num(s['incumbent_sse'])}, certified bound {_num(s['lower_bound'])} "
           f"(least open bound), gap {gap}",
           f"root bound {_num(s['root_lp_bound'])} before cuts, {_num(s['root_cut_bound'])} "
           f"after; the tree has closed {closed} of the root gap",
           f"nodes processed {s['nodes']:,} (deepest {s['max_depth']}), open {s['open_nodes']:,}; "
           f"tree-size estimate {est}"]
    if s["open_nodes"]:
        b, d = s["open_bound_quantiles"], s["open_depth_quantiles"]
        out.append("open bounds: min {min:.4f}, 10 % {q10:.4f}, median {median:.4f}, "
                   "90 % {q90:.4f}, max {max:.4f}".format(**b))
        out.append("open depths: min {min:.0f}, median {median:.0f}, max {max:.0f}".format(**d))
    rows = ", ".join(f"{c} on {r} rows" for r, c in s["cuts_by_rows"].items()) or "none"
    out.append(f"columns {s['columns']:,}; cuts {s['cuts']} ({rows}), {s['node_cuts']} of them "
               f"at nodes; pairs fixed: {s['fixed_pairs']} at the root, "
               f"{s['node_fixed_pairs']} at nodes")
    out.append(f"node gap closings {s['node_closings']} ({s['node_partial_closings']} partial, "
               f"{s['node_closing_incumbents']} found a better partition)")
    opts = " ".join(f"{k}={json.dumps(v) if not isinstance(v, str) else v}"
                    for k, v in s["options"].items())
    out.append(f"options (not defaults): {opts or 'none'}")
    return out


def _cmd_tree(args) -> int:
    from .exact import checkpoint

    s = checkpoint.summary(checkpoint.load(args.checkpoint))
    if args.json:
        print(json.dumps({"checkpoint": args.checkpoint, **s}))
    else:
        print(f"checkpoint {args.checkpoint}")
        print("\n".join("  " + line for line in _lines(s)))
    return 0
