"""HTA over a folder of Vantage traces: what it parses and what its analyses give.

HTA is not part of Vantage: point HTA_PATH at a checkout of facebookresearch/HolisticTraceAnalysis and run with a
python that has its dependencies (Debian's python3-pandas, python3-psutil, python3-networkx, python3-plotly):

    HTA_PATH=/tmp/hta /usr/bin/python3 benchmarks/readers/hta_check.py DIR
"""
import os
import sys
import warnings

sys.path.insert(0, os.environ.get("HTA_PATH", "/tmp/hta"))
warnings.simplefilter("ignore")

import pandas as pd  # noqa: E402
from hta.trace_analysis import TraceAnalysis  # noqa: E402

pd.set_option("display.width", 200)
ta = TraceAnalysis(trace_dir=sys.argv[1])
for rank, df in ta.t.traces.items():
    print(f"rank {rank}: {len(df)} events, {int((df['stream'] > 0).sum())} on device streams,"
          f" {int((df['index_correlation'] > 0).sum())} correlated, iterations {sorted(df['iteration'].unique())}")
print(ta.get_temporal_breakdown(visualize=False).to_string())
print(ta.get_gpu_kernel_breakdown(visualize=False)[1].head(8).to_string())
print(ta.get_idle_time_breakdown(visualize=False)[0].to_string())
