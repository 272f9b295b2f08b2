"""What `vantage analyze TRACE --analysis idle,launch,queue,critical-path` computes, done by HTA, for timing the two
side by side (docs/benchmarks.md, "The analyses of one trace, next to HTA"):

    HTA_PATH=/tmp/hta /usr/bin/time -v /usr/bin/python3 benchmarks/hta/hta_done_when.py DIR

It loads the folder's traces, then for every rank: the idle time breakdown, the kernel launch statistics, the queue
length series and summary, and the critical path of every ProfilerStep HTA counts, with its breakdown.
"""
import logging
import os
import sys
import time
import warnings

sys.path.insert(0, os.environ.get("HTA_PATH", "/tmp/hta"))
warnings.simplefilter("ignore")
logging.disable(logging.CRITICAL)

start = time.time()
from hta.trace_analysis import TraceAnalysis  # noqa: E402

ta = TraceAnalysis(trace_dir=sys.argv[1])
loaded = time.time()
ranks = sorted(ta.t.get_all_traces())
ta.get_idle_time_breakdown(ranks=ranks, visualize=False)
ta.get_cuda_kernel_launch_stats(ranks=ranks, visualize=False)
ta.get_queue_length_time_series(ranks=ranks)
ta.get_queue_length_summary(ranks=ranks)
paths = 0
for rank in ranks:
    df = ta.t.get_trace(rank)
    ids = [i for i, s in enumerate(ta.t.symbol_table.sym_table) if "ProfilerStep" in s]
    for i in range(int(df.name.isin(ids).sum())):
        graph, ok = ta.critical_path_analysis(rank=rank, annotation="ProfilerStep", instance_id=i)
        graph.get_critical_path_breakdown()
        paths += 1
print(f"load {loaded - start:.2f} s, analyses {time.time() - loaded:.2f} s, {paths} critical paths", file=sys.stderr)
