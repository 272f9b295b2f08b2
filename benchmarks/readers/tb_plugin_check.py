"""Loads Vantage traces with the PyTorch TensorBoard plugin's own parser and prints what its views would show.

The plugin is not part of Vantage: point TB_PLUGIN_PATH at a checkout of pytorch/kineto's tb_plugin at the commit
before its removal (94979607^) and run with a python that has its dependencies (Debian's python3-pandas):

    TB_PLUGIN_PATH=/tmp/kineto/tb_plugin /usr/bin/python3 benchmarks/readers/tb_plugin_check.py TRACE.json.gz ...
"""
import os
import sys
import tempfile
import warnings

sys.path.insert(0, os.environ.get("TB_PLUGIN_PATH", "/tmp/kineto/tb_plugin"))
warnings.simplefilter("ignore")

from torch_tb_profiler.profiler.data import RunProfileData  # noqa: E402
from torch_tb_profiler.profiler.run_generator import RunGenerator  # noqa: E402


def rows(table):
    return table["data"]["rows"] if "data" in table else table["rows"]


for path in sys.argv[1:]:
    worker = os.path.basename(path).split(".")[0]
    data = RunProfileData.parse(worker, None, path, tempfile.mkdtemp())
    profile = RunGenerator(worker, None, data).generate_run_profile()
    print(f"== {path}")
    print("views:", ", ".join(v.display_name for v in profile.views))
    print("steps:", data.steps_names, "kernels:", data.has_kernel, "runtime:", data.has_runtime)
    if profile.kernel_table is not None:
        kernels = rows(profile.kernel_table)
        print(f"Kernel view: {len(kernels)} kernels (name, tensor cores, calls, total, mean, max, min us):")
        for r in kernels[:5]:
            print("  ", r)
        by_op = rows(profile.kernel_op_table)
        print("kernels by operator:", sorted({r[1] for r in by_op}))
    for step in profile.overview["steps"]["rows"]:
        print("overview step", step[0], "kernel us", round(step[1]), "runtime us", round(step[7]),
              "cpu exec us", round(step[11]))
