"""Rewrites a Kineto trace of the modern linkage into the 2021-2022 one: every runtime call's and device work's
External id becomes its correlation. Used to check that Vantage gives the same figures for both linkages on real traces
(docs/benchmarks.md, "PyTorch traces"): python3 to_old_linkage.py IN.json[.gz] OUT.json.gz"""
import json,gzip,sys
src,dst=sys.argv[1],sys.argv[2]
d=json.load(gzip.open(src) if src.endswith('.gz') else open(src))
for e in d['traceEvents']:
  c=(e.get('cat') or '').lower()
  a=e.get('args')
  if e.get('ph')=='X' and a is not None and 'correlation' in a and (c in ('runtime','kernel','memcpy','memset','gpu_memcpy','gpu_memset') or c.endswith('_runtime')):
    a.pop('external id',None); a['External id']=a['correlation']
json.dump(d, gzip.open(dst,'wt'))
