"""The TensorBoard profiler plugin's Memory view figures for traces, as JSON: what the board's Memory view (the
engine's MemoryEvents) is checked against.

The plugin is not part of Vantage: point TB_PLUGIN_PATH at a checkout of pytorch/kineto's tb_plugin at the commit
before its removal (94979607^) and run with a python that has its dependencies (Debian's python3-pandas):

    TB_PLUGIN_PATH=/tmp/kineto/tb_plugin /usr/bin/python3 benchmarks/readers/tb_plugin_memory.py TRACE... > OUT.json

Per trace and device (the plugin's names: CPU, GPU0, ...):
- "statistics": the plugin's memory statistics by operator (MemorySnapshot.get_memory_statistics, in bytes, not
  rounded): calls, size increase, self size increase, allocation count, self allocation count, allocation size, self
  allocation size; and "self_frees", the count and bytes of the frees it gave each operator (its op_memory_table);
- "events": its memory events table (RunProfile.get_memory_events, in bytes and microseconds from its start) summed
  per operator: rows, bytes, rows freed and the microseconds held by those, rows never freed, frees never allocated;
- "first_ts": the plugin's start time (the trace's first event), "records": the [memory] events it read.
"""
import json
import os
import sys
from collections import defaultdict

import tb_plugin_loader as tb  # first: it puts the plugin on sys.path
from torch_tb_profiler.profiler.node import is_operator_node
from torch_tb_profiler.profiler.run_generator import RunGenerator

out = {}
for path in sys.argv[1:]:
    with tb.quiet():
        data = tb.parse(path)
        run = RunGenerator(tb.worker(path), None, data).generate_run_profile()
    snapshot = run.memory_snapshot
    stats = snapshot.get_memory_statistics(run.tid2tree)
    frees = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for node, records in snapshot.op_memory_table.items():
        if not is_operator_node(node):
            continue
        for r in records:
            if r.device_name is not None and r.bytes < 0:
                frees[r.device_name][node.name][0] += 1
                frees[r.device_name][node.name][1] -= r.bytes
    devices = {}
    for device, by_op in stats.items():
        devices[device] = {"statistics": {op: {
            "calls": v[6], "increase": v[3], "self_increase": v[0], "allocations": v[5], "self_allocations": v[2],
            "allocated": v[4], "self_allocated": v[1],
            "self_frees": frees[device][op][0], "self_freed": frees[device][op][1]} for op, v in by_op.items()}}
    events = run.get_memory_events(time_metric="us", memory_metric="B")["rows"]
    for device, rows in events.items():
        summed = defaultdict(lambda: {"rows": 0, "bytes": 0, "freed": 0, "held_us": 0.0, "never_freed": 0,
                                      "never_allocated": 0})
        for op, size, allocated_at, released_at, held in rows:
            s = summed[op]
            s["rows"] += 1
            s["bytes"] += size
            if held is not None:
                s["freed"] += 1
                s["held_us"] += held
            elif released_at is None:
                s["never_freed"] += 1
            else:
                s["never_allocated"] += 1
        devices.setdefault(str(device), {})["events"] = summed
    out[os.path.basename(path)] = {
        "first_ts": run.profiler_start_ts,
        "records": len(snapshot.memory_records),
        "devices": devices,
    }
json.dump(out, sys.stdout, indent=1, sort_keys=True)
print()
