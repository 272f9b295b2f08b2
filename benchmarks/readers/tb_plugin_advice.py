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
import json
import os
import sys

import tb_plugin_loader as tb  # first: it puts the plugin on sys.path
from torch_tb_profiler.profiler.event_parser import ProfileRole

out = {}
for path in sys.argv[1:]:
    with tb.quiet():
        data = tb.parse(path)
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
