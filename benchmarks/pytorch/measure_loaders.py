"""The loaders users would pick instead of Vantage, on one real PyTorch trace: the TensorBoard profiler plugin's
(RunProfileData.parse, which reads and analyses the file for every view) or HTA's (TraceAnalysis on a folder holding
only that trace). Prints the loader's own time; wall time and peak RSS come from /usr/bin/time -v around it
(docs/benchmarks.md, "PyTorch traces: reading next to the TensorBoard plugin and HTA"). With --ops, also prints the
plugin's operator table as JSON (name: calls, host and device times in us) and its steps (name, total us), which the comparison of operator
device times reads. Neither tool is part of Vantage: point TB_PLUGIN_PATH at kineto's tb_plugin/ (commit 94979607^)
and HTA_PATH at a HolisticTraceAnalysis checkout, and run with a python that has pandas (Debian's python3-pandas).

    /usr/bin/time -v /usr/bin/python3 benchmarks/pytorch/measure_loaders.py tb|hta TRACE [--ops]
"""
import json
import logging
import os
import shutil
import sys
import tempfile
import time
import warnings

warnings.simplefilter("ignore")
logging.disable(logging.CRITICAL)


def tensorboard(path, ops):
    sys.path.insert(0, os.environ.get("TB_PLUGIN_PATH", "/tmp/tb_plugin"))
    from torch_tb_profiler.profiler.data import RunProfileData
    t0 = time.perf_counter()
    data = RunProfileData.parse("worker0", None, path, tempfile.mkdtemp())
    t1 = time.perf_counter()
    print(f"tb: load {t1 - t0:.3f} s, steps {len(data.steps_names)}", flush=True)
    if ops:
        table = data.op_list_groupby_name
        rows = table.values() if isinstance(table, dict) else table
        print(json.dumps({"ops": {a.name: {"calls": a.calls, "host_total_us": a.host_duration,
                                          "host_self_us": a.self_host_duration,
                                          "device_total_us": a.device_duration,
                                          "device_self_us": a.self_device_duration} for a in rows},
                          "steps": [{"step": n, "total_us": c.costs[-1]}
                                    for n, c in zip(data.steps_names, data.steps_costs)]}))


def hta(path):
    sys.path.insert(0, os.environ.get("HTA_PATH", "/tmp/hta"))
    from hta.trace_analysis import TraceAnalysis
    folder = tempfile.mkdtemp()
    shutil.copy(path, folder)
    t0 = time.perf_counter()
    ta = TraceAnalysis(trace_dir=folder)
    t1 = time.perf_counter()
    frames = ta.t.traces if hasattr(ta.t, "traces") else {}
    print(f"hta: load {t1 - t0:.3f} s, rows {sum(len(df) for df in frames.values())}", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "tb":
        tensorboard(sys.argv[2], "--ops" in sys.argv)
    else:
        hta(sys.argv[2])
