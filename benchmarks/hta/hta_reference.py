"""HTA's figures for a folder of traces, as JSON: what Vantage's `analyze --analysis temporal,kernels,launch,idle,queue,bandwidth` is checked against.

HTA is not part of Vantage: point HTA_PATH at a checkout of facebookresearch/HolisticTraceAnalysis and run with a
python that has its dependencies (Debian's python3-pandas, python3-psutil, python3-networkx, python3-plotly):

    HTA_PATH=/tmp/hta /usr/bin/python3 benchmarks/hta/hta_reference.py DIR > DIR.hta.json

It prints, per rank, HTA's temporal breakdown (TraceAnalysis.get_temporal_breakdown), its kernel breakdown
(get_gpu_kernel_breakdown with memory kernels included: the kernel-type table and the per-kernel table), its
kernel launch statistics (get_cuda_kernel_launch_stats for every rank), its idle time breakdown
(get_idle_time_breakdown, one rank at a time) and its queue lengths (the time series, the summary, and the time spent
at a queue of 1 or more by get_time_spent_blocked_on_full_queue: HTA's 1,024 is never reached in these traces) and its
memory bandwidth (get_memory_bw_time_series and get_memory_bw_summary), with the column names HTA gives them.
"""
import json
import math
import os
import sys
import warnings

sys.path.insert(0, os.environ.get("HTA_PATH", "/tmp/hta"))
warnings.simplefilter("ignore")

from hta.trace_analysis import TraceAnalysis  # noqa: E402


def plain(v):
    v = v.item() if hasattr(v, "item") else v
    # JSON has no NaN: HTA's undefined ratio (0 / 0) is written as null
    return None if isinstance(v, float) and math.isnan(v) else v


def rows(df):
    return [{k: plain(v) for k, v in record.items()} for record in df.to_dict(orient="records")]


def described(result, key, summary):
    """A summary of pandas' describe() per group, its two-level columns flattened to the statistics' names."""
    if summary is not None:
        summary.columns = [c[1] for c in summary.columns]
        result[key] = rows(summary.reset_index())


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit("usage: hta_reference.py DIR")
    ta = TraceAnalysis(trace_dir=sys.argv[1])
    result = {"temporal": rows(ta.get_temporal_breakdown(visualize=False))}
    kernel_types, kernels = ta.get_gpu_kernel_breakdown(visualize=False, include_memory_kernels=True)
    result["kernel_types"] = rows(kernel_types)
    result["kernels"] = rows(kernels)
    ranks = ta.t.get_ranks()
    launches = ta.get_cuda_kernel_launch_stats(ranks=ranks, visualize=False)
    result["launch"] = {str(rank): rows(df) for rank, df in launches.items()}
    series = ta.get_queue_length_time_series(ranks=ranks)
    result["queue_length"] = {str(rank): rows(df) for rank, df in series.items()}
    described(result, "queue_length_summary", ta.get_queue_length_summary(ranks=ranks))
    full = ta.get_time_spent_blocked_on_full_queue(series, max_queue_length=1)
    result["queue_full_at_1"] = rows(full) if full is not None else []
    bw = ta.get_memory_bw_time_series(ranks=ranks)
    result["memory_bw"] = {str(rank): rows(df) for rank, df in bw.items()}
    described(result, "memory_bw_summary", ta.get_memory_bw_summary(ranks=ranks))
    # HTA's idle table has no rank column: one call per rank
    result["idle"] = {str(rank): rows(ta.get_idle_time_breakdown(ranks=[rank], visualize=False)[0])
                      for rank in ranks}
    json.dump(result, sys.stdout, sort_keys=True, separators=(",", ":"))
    print()


if __name__ == "__main__":
    main()
