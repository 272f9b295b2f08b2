#!/usr/bin/env python3
"""Points Holistic Trace Analysis (HTA) at a Vantage profile folder, as a user would.

A manual check, not part of the Maven build. It needs Python 3 with HTA's imports (pandas, numpy, plotly,
networkx, pydot, psutil, PyYAML) and HTA's source tree on PYTHONPATH; it contacts no network address:

    PYTHONPATH=/path/to/HolisticTraceAnalysis python3 itests/src/test/python/hta_profile_folder.py vantage_profiles

It prints the files HTA takes as traces (HTA takes every *.json and *.gz of the folder, one per rank), loads the
folder with TraceAnalysis(trace_dir=...), then runs the analyses that apply to what the traces hold and says for
each whether it worked. Exit 0 when the folder loads, 1 when it does not.
"""
import logging
import os
import sys
import traceback


def main(trace_dir):
    from hta.common.trace_file import get_trace_files
    from hta.trace_analysis import TraceAnalysis

    print("HTA takes as rank traces:", {r: os.path.basename(f) for r, f in sorted(get_trace_files(trace_dir).items())})
    try:
        analysis = TraceAnalysis(trace_dir=trace_dir)
    except Exception as e:  # what a user sees: the folder does not load
        print("TraceAnalysis(trace_dir=%r) failed: %s: %s" % (trace_dir, type(e).__name__, e))
        traceback.print_exc(limit=-3)
        return 1
    for rank in sorted(analysis.t.traces):
        df = analysis.t.get_trace(rank)
        print("rank %d: %d events, %d kinds of name" % (rank, len(df), df["name"].nunique()))
    checks = [
        ("get_profiler_steps", lambda: analysis.get_profiler_steps()),
        ("get_temporal_breakdown", lambda: analysis.get_temporal_breakdown(visualize=False)),
        ("get_gpu_kernel_breakdown", lambda: analysis.get_gpu_kernel_breakdown(visualize=False)),
        ("get_idle_time_breakdown", lambda: analysis.get_idle_time_breakdown(visualize=False)),
        ("get_comm_comp_overlap", lambda: analysis.get_comm_comp_overlap(visualize=False)),
        ("get_cuda_kernel_launch_stats", lambda: analysis.get_cuda_kernel_launch_stats(visualize=False)),
        ("get_queue_length_summary", lambda: analysis.get_queue_length_summary(ranks=None)),
    ]
    for name, run in checks:
        try:
            result = run()
            shape = getattr(result, "shape", None)
            if isinstance(result, tuple):
                shape = [getattr(r, "shape", None) for r in result]
            elif isinstance(result, dict):
                shape = {k: getattr(v, "shape", v) for k, v in result.items()}
            print("%s: ok %s" % (name, shape if shape is not None else result))
        except Exception as e:
            print("%s: failed: %s: %s" % (name, type(e).__name__, str(e).splitlines()[0] if str(e) else ""))
    return 0


if __name__ == "__main__":
    logging.getLogger().setLevel(logging.ERROR)
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "vantage_profiles"))
