"""HTA's frequent kernel sequences for one rank of a folder of traces, as JSON: what Vantage's
`analyze --analysis sequences --operator OP` is checked against.

HTA is not part of Vantage: point HTA_PATH at a checkout of facebookresearch/HolisticTraceAnalysis and run with a
python that has its dependencies (Debian's python3-pandas, python3-psutil, python3-networkx, python3-plotly):

    HTA_PATH=/tmp/hta /usr/bin/python3 benchmarks/hta/hta_sequences.py DIR RANK OP [OP...] > NAME.sequences.json

For each operator it prints HTA's get_frequent_cuda_kernel_sequences(operator_name=OP, rank=RANK,
min_pattern_len=3) rows, with HTA's column names. A pattern of more than 50 names (a whole step's kernels) is given
by its first name, its number of names and the SHA-256 of its text, so that the file stays small.
"""
import hashlib
import json
import logging
import os
import sys
import tempfile
import warnings

sys.path.insert(0, os.environ.get("HTA_PATH", "/tmp/hta"))
warnings.simplefilter("ignore")
logging.disable(logging.CRITICAL)

from hta.trace_analysis import TraceAnalysis  # noqa: E402


def row(record):
    out = {k: (v.item() if hasattr(v, "item") else v) for k, v in record.items()}
    names = out["pattern"].split("|")
    if len(names) > 50:
        out["pattern_sha256"] = hashlib.sha256(out.pop("pattern").encode("utf-8")).hexdigest()
        out["pattern_root"] = names[0]
        out["pattern_length"] = len(names)
    return out


def main() -> None:
    if len(sys.argv) < 4:
        sys.exit("usage: hta_sequences.py DIR RANK OP [OP...]")
    ta = TraceAnalysis(trace_dir=sys.argv[1])
    rank = int(sys.argv[2])
    result = {}
    for op in sys.argv[3:]:
        with tempfile.TemporaryDirectory() as tmp:
            df = ta.get_frequent_cuda_kernel_sequences(operator_name=op, output_dir=tmp, rank=rank, visualize=False,
                                                        min_pattern_len=3, top_k=5)
        result[op] = [row(r) for r in df.to_dict(orient="records")]
    json.dump(result, sys.stdout, sort_keys=True, separators=(",", ":"))
    print()


if __name__ == "__main__":
    main()
