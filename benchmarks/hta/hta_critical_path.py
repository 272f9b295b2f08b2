"""HTA's lightweight critical path for every rank of a folder of traces, as JSON: what Vantage's
`analyze --analysis critical-path` is checked against.

HTA is not part of Vantage: point HTA_PATH at a checkout of facebookresearch/HolisticTraceAnalysis and run with a
python that has its dependencies (Debian's python3-pandas, python3-psutil, python3-networkx, python3-plotly):

    HTA_PATH=/tmp/hta /usr/bin/python3 benchmarks/hta/hta_critical_path.py DIR [ANNOTATION] > NAME.critical_path.json

For each rank and each instance of the annotation (default ProfilerStep; "" for the whole trace) it runs
critical_path_analysis(rank, annotation, instance_id) and prints the path's length, its edges' count and time by
edge type and by bound_by, and the path itself: the SHA-256 of its edges' lines "TYPE<tab>DURATION<tab>EVENT NAME"
(joined with newlines, in path order) and its first and last ten lines, so that the file stays small.
"""
import hashlib
import json
import logging
import os
import sys
import warnings

sys.path.insert(0, os.environ.get("HTA_PATH", "/tmp/hta"))
warnings.simplefilter("ignore")
logging.disable(logging.CRITICAL)

from hta.trace_analysis import TraceAnalysis  # noqa: E402


def path_of(ta, rank, annotation, instance):
    graph, ok = ta.critical_path_analysis(rank=rank, annotation=annotation, instance_id=instance)
    if not ok:
        return None
    symbols = ta.t.symbol_table.sym_table
    df = ta.t.get_trace(rank)
    edges = []
    for u, v in zip(graph.critical_path_nodes, graph.critical_path_nodes[1:]):
        e = graph.edges[u, v]["object"]
        ev = graph.get_event_attribution_for_edge(e)
        name = symbols[df.name.loc[ev]] if ev is not None and ev >= 0 else ""
        edges.append(f"{e.type.value}\t{int(e.weight)}\t{name}")
    breakdown = graph.get_critical_path_breakdown()
    by_bound = {k: int(v) for k, v in breakdown.groupby("bound_by").duration.sum().items() if k}
    by_type = {k: [int(v["sum"]), int(v["count"])] for k, v in
               breakdown.groupby("type").duration.agg(["sum", "count"]).iterrows()}
    return {"length": int(breakdown.duration.sum()), "by_bound": by_bound, "by_type": by_type, "edges": len(edges),
            "edges_sha256": hashlib.sha256("\n".join(edges).encode("utf-8")).hexdigest(),
            "first": edges[:10], "last": edges[-10:]}


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit("usage: hta_critical_path.py DIR [ANNOTATION]")
    annotation = sys.argv[2] if len(sys.argv) > 2 else "ProfilerStep"
    ta = TraceAnalysis(trace_dir=sys.argv[1])
    result = {}
    for rank in sorted(ta.t.get_all_traces()):
        df = ta.t.get_trace(rank)
        symbols = ta.t.symbol_table.sym_table
        if annotation:
            ids = [i for i, s in enumerate(symbols) if annotation in s]
            instances = int(df.name.isin(ids).sum())
        else:
            instances = 1
        result[str(rank)] = [path_of(ta, rank, annotation, i) for i in range(instances)]
    json.dump(result, sys.stdout, sort_keys=True, separators=(",", ":"))
    print()


if __name__ == "__main__":
    main()
