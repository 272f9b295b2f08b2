"""The TensorBoard profiler plugin's recommendations for traces, as JSON: what Vantage's `analyze --analysis advice`
is checked against.

The plugin is not part of Vantage: point TB_PLUGIN_PATH at a checkout of pytorch/kineto's tb_plugin at the commit
before its removal (94979607^) and run with a python that has its dependencies (Debian's python3-pandas):

    TB_PLUGIN_PATH=/tmp/kineto/tb_plugin /usr/bin/python3 benchmarks/readers/tb_plugin_advice.py TRACE.json.gz > OUT.json

Per trace: the plugin's recommendations (RunProfileData.analyze) as it words them, and the figures its rules compare
with their thresholds: the DataLoader and communication shares of the average step, each GPU's utilization, the
Tensor Cores share of kernel time per GPU and the eligible operators' share, whether DataParallel or
DistributedDataParallel ran, and the communication libraries seen.
"""
import contextlib
import json
import os
import sys
import tempfile
import warnings

sys.path.insert(0, os.environ.get("TB_PLUGIN_PATH", "/tmp/kineto/tb_plugin"))
warnings.simplefilter("ignore")

from torch_tb_profiler.profiler.data import RunProfileData  # noqa: E402
from torch_tb_profiler.profiler.event_parser import ProfileRole  # noqa: E402

out = {}
for path in sys.argv[1:]:
    worker = os.path.basename(path).split(".")[0]
    # the plugin prints its warnings on stdout: keep them off the JSON
    with contextlib.redirect_stdout(sys.stderr):
        data = RunProfileData.parse(worker, None, path, tempfile.mkdtemp())
        data.analyze()
    costs = data.avg_costs.costs
    total = costs[ProfileRole.Total]
    out[os.path.basename(path)] = {
        "recommendations": data.recommendations,
        "dataloader_ratio": costs[ProfileRole.DataLoader] / total if total else None,
        "communication_ratio": costs[ProfileRole.Communication] / total if total else None,
        "gpu_utilization": {str(g): data.gpu_metrics_parser.gpu_utilization[g]
                            for g in sorted(data.gpu_metrics_parser.gpu_ids)},
        "tc_ratio": data.tc_ratio,
        "tc_eligible_ops_kernel_ratio": data.tc_eligible_ops_kernel_ratio,
        "use_dp": data.use_dp,
        "use_ddp": data.use_ddp,
        "comm_lib": sorted(str(c) for c in (data.comm_lib or [])),
    }
json.dump(out, sys.stdout, indent=1, sort_keys=True)
print()
