"""The TensorBoard profiler plugin's GPU figures for traces, as JSON: what Vantage's `analyze --analysis gpu` is checked
against.

The plugin is not part of Vantage: point TB_PLUGIN_PATH at a checkout of pytorch/kineto's tb_plugin at the commit
before its removal (94979607^) and run with a python that has its dependencies (Debian's python3-pandas):

    TB_PLUGIN_PATH=/tmp/kineto/tb_plugin /usr/bin/python3 benchmarks/readers/tb_plugin_gpu.py TRACE.json.gz > OUT.json

Per GPU, as the plugin's Overview shows them: GPU Utilization, Est. SM Efficiency, Est. Achieved Occupancy; the steps'
span they are taken over (span_us, the plugin's own step rule); and the Tensor Cores share of kernel time (tc_ratio)
with the eligible operators' share.
"""
import json
import os
import sys
import tempfile
import warnings

sys.path.insert(0, os.environ.get("TB_PLUGIN_PATH", "/tmp/kineto/tb_plugin"))
warnings.simplefilter("ignore")

from torch_tb_profiler.profiler.data import RunProfileData  # noqa: E402
from torch_tb_profiler.profiler.gpu_metrics_parser import GPUMetricsParser  # noqa: E402

# the span the plugin takes its figures over (its steps' start and end, device work included), caught on the way in
spans = []
parse_events = GPUMetricsParser.parse_events.__func__


def catching(cls, events, global_start, global_end, steps_start, steps_end):
    spans.append([steps_start, steps_end])
    return parse_events(cls, events, global_start, global_end, steps_start, steps_end)


GPUMetricsParser.parse_events = classmethod(catching)

out = {}
for path in sys.argv[1:]:
    worker = os.path.basename(path).split(".")[0]
    data = RunProfileData.parse(worker, None, path, tempfile.mkdtemp())
    g = data.gpu_metrics_parser
    gpus = {}
    for gpu in sorted(g.gpu_ids):
        gpus[str(gpu)] = {
            "gpu_utilization": g.gpu_utilization[gpu],
            "sm_efficiency": g.avg_approximated_sm_efficiency_per_device[gpu],
            "achieved_occupancy": g.avg_occupancy_per_device[gpu],
            "tc_ratio": data.tc_ratio[gpu] if data.tc_ratio and gpu < len(data.tc_ratio) else None,
        }
    out[os.path.basename(path)] = {
        "span_us": spans[-1],
        "gpus": gpus,
        "tc_eligible_ops_kernel_ratio": data.tc_eligible_ops_kernel_ratio,
    }
json.dump(out, sys.stdout, indent=1, sort_keys=True)
print()
