"""Compares the operator table of the TensorBoard plugin (measure_loaders.py tb TRACE --ops, last line) with
Vantage's (TraceOps TRACE): calls exactly, times within 0.5 us per call (the plugin reads microseconds as doubles).
    python3 compare_ops.py TB.json VANTAGE.json"""
import json,sys
tb=json.load(open(sys.argv[1])); va=json.load(open(sys.argv[2]))
t=tb['ops']; v=va['ops']
names=set(t)|set(v)
eq=0; diff=[]; missing=[]
for n in sorted(names):
  a=t.get(n); b=v.get(n)
  if a is None or b is None: missing.append(n); continue
  tv=(a['calls'],a['host_total_us']*1000,a['host_self_us']*1000,a['device_total_us']*1000,a['device_self_us']*1000)
  tol=500*a['calls']  # the plugin reads times as doubles: absolute microseconds of 2024 traces are 0.25 us apart
  if tv[0]==b[0] and all(abs(x-y)<=tol for x,y in zip(tv[1:],b[1:])): eq+=1
  else: diff.append((n,tv,tuple(b)))
devsum_tb=sum(x['device_total_us'] for x in t.values()); devsum_va=sum(x[3] for x in v.values())/1000
print(f'ops {len(names)}: equal {eq}, differ {len(diff)}, only one side {len(missing)} {missing[:4]}; device total sum tb {devsum_tb:.0f} us, vantage {devsum_va:.0f} us')
for d in diff[:3]: print('  ', d)
