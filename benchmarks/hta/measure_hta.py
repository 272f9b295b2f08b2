"""HTA on a folder of Chrome traces, one per rank: load, temporal breakdown, comm/comp overlap.

Prints the time of each stage and, per rank, what HTA says; the wall time and peak RSS of the whole come from
/usr/bin/time -v around it (see docs/benchmarks.md, "HTA next to analyze"). HTA is not part of Vantage: point
HTA_PATH at a checkout of facebookresearch/HolisticTraceAnalysis and run with a python that has its dependencies.

    HTA_PATH=/tmp/hta /usr/bin/time -v /usr/bin/python3 benchmarks/hta/measure_hta.py DIR [OUT.csv]
"""
import os
import sys
import time

sys.path.insert(0, os.environ.get("HTA_PATH", "/tmp/hta"))

from hta.trace_analysis import TraceAnalysis  # noqa: E402


def main() -> None:
    if len(sys.argv) < 2:
        sys.exit("usage: measure_hta.py DIR [OUT.csv]")
    t0 = time.perf_counter()
    ta = TraceAnalysis(trace_dir=sys.argv[1])
    t1 = time.perf_counter()
    breakdown = ta.get_temporal_breakdown(visualize=False)
    t2 = time.perf_counter()
    overlap = ta.get_comm_comp_overlap(visualize=False)
    t3 = time.perf_counter()
    ranks = breakdown.merge(overlap, on="rank").sort_values("rank")
    print(f"ranks {len(ranks)}; load {t1 - t0:.1f} s, temporal breakdown {t2 - t1:.1f} s, "
          f"comm/comp overlap {t3 - t2:.1f} s", flush=True)
    pctg = ranks["comp_comm_overlap_pctg"]
    print(f"comp_comm_overlap_pctg min {pctg.min()} median {pctg.median()} max {pctg.max()}")
    for column in ["idle_time_pctg", "compute_time_pctg", "non_compute_time_pctg"]:
        print(f"{column} min {ranks[column].min()} max {ranks[column].max()}")
    if len(sys.argv) > 2:
        ranks.to_csv(sys.argv[2], index=False)


if __name__ == "__main__":
    main()
