#!/usr/bin/env python3
"""Writes the corpus of damaged traces from the real traces in ../real/, one damage per file, as torch writes it.

Run from this directory: python3 make_corpus.py. Deterministic: the same real traces give the same files. Only the
standard library. What each file is, and what the reader makes of it, is in README.md.
"""
import gzip
import io
import json

REAL = '../real/'


def text(name):
    if name.endswith('.gz'):
        with gzip.open(REAL + name, 'rt', encoding='utf-8') as f:
            return f.read()
    with open(REAL + name, encoding='utf-8') as f:
        return f.read()


def write(name, content, compress=True):
    data = content.encode('utf-8') if isinstance(content, str) else content
    if name.endswith('.gz') and compress:
        buf = io.BytesIO()
        with gzip.GzipFile(fileobj=buf, mode='wb', mtime=0) as g:
            g.write(data)
        data = buf.getvalue()
    with open(name, 'wb') as f:
        f.write(data)


def nth(haystack, needle, n):
    at = -1
    for _ in range(n):
        at = haystack.index(needle, at + 1)
    return at


cuda = text('cuda-event-sync-multi-stream.json.gz')
rocm = text('rocm-mi250.json.gz')
legacy = text('torch-1.13-legacy.trace.json')

# kineto#1184: with_stack under torch.compile names a frame by a co_filename holding quotes, written unescaped
name = '"name": "aten::mm"'
at = nth(cuda, name, 2)
write('unescaped-quote.json.gz',
      cuda[:at] + '"name": "{"device": "cuda", "dtype": "float32"}(12): run"' + cuda[at + len(name):])

# pytorch#172353: an empty process group description written without its quotes
args = '"args": {\n      "External id": 13,'
at = rocm.index(args)
write('key-without-value.json.gz',
      rocm[:at] + '"args": {\n      "Process Group Description": ,\n      "External id": 13,' + rocm[at + len(args):])

# a job killed while writing: the file ends inside an event, two thirds of the way in
write('cut-off.json', cuda[:nth(cuda, '"ph": "X"', 40) + 30])

# the same of a .gz: the compressed stream itself cut short
whole = io.BytesIO()
with gzip.GzipFile(fileobj=whole, mode='wb', mtime=0) as g:
    g.write(rocm.encode('utf-8'))
write('cut-off-gzip.json.gz', whole.getvalue()[:len(whole.getvalue()) * 7 // 10], compress=False)

# NaN and Infinity where JSON has numbers (Python's json.dump writes them for float('nan'), float('inf'))
dur = '"dur": 466'
at = cuda.index(dur)
nan = cuda[:at] + '"dur": NaN' + cuda[at + len(dur):]
ts = '"ts": 1712867402367756'
at = nan.index(ts)
write('nan-infinity.json.gz', nan[:at] + '"ts": Infinity' + nan[at + len(ts):])

# an event that names a field twice: the last value is the one JSON parsers keep
dur = '"dur": 292'
at = cuda.index(dur)
write('duplicate-key.json.gz', cuda[:at] + '"dur": 100, "dur": 292' + cuda[at + len(dur):])

# pytorch#174555: a step span that starts inside the op before it and ends after it
step = '"name": "ProfilerStep#2", "pid": 597913, "tid": 597913,\n    "ts": '
at = rocm.index(step) + len(step)
end = rocm.index(',', at)
start = float(rocm[at:end])
before = rocm.rfind('"cat": "cpu_op"', 0, at)
ts_at = rocm.index('"ts": ', before) + len('"ts": ')
prev = float(rocm[ts_at:rocm.index(',', ts_at)])
write('overlapping.json.gz', rocm[:at] + ('%.3f' % ((start + prev) / 2)) + rocm[end:])

# torch's legacy array without its closing ], and ending in a comma, as a killed writer leaves it
write('legacy-unclosed.json', legacy.rstrip()[:-1])
write('legacy-trailing-comma.json', legacy.rstrip()[:-1] + ',\n')
# ... and cut inside an event
write('legacy-cut-off.json', legacy[:nth(legacy, '{"name"', 300) + 25])

# an event whose bytes have no reading (a disk error, two writers interleaved): reading goes on at the next one
pid = '"pid": 3727853, "tid": 3727853,'
at = cuda.index(pid, nth(cuda, '"ph": "X", "cat": "cpu_op"', 3))
write('damaged-event.json.gz', cuda[:at] + '"pid" 3727853 3727853 :: "tid",' + cuda[at + len(pid):])

# not JSON at all: refused, with or without --strict
write('not-json.json', 'aten::mm 12.5 us\naten::add 3.0 us\n')
