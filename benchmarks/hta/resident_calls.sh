#!/usr/bin/env bash
# One call of `vantage analyze TRACE --analysis idle,launch,queue,critical-path --format csv` as a user makes it,
# in its own JVM and through the resident process (VANTAGE_DAEMON=1), timed with /usr/bin/time: wall time and peak
# RSS of the command (docs/benchmarks.md, "The analyses of one trace, next to HTA"). The resident process's own peak
# and resting RSS come from /proc. Usage, from the repository with the distribution built:
#
#   benchmarks/hta/resident_calls.sh TRACE [CALLS]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
trace="$(realpath "$1")"
calls="${2:-40}"
work="$(mktemp -d)"
export VANTAGE_DAEMON_DIR="$work/daemons"
cd "$work"
analyze=(analyze "$trace" --analysis idle,launch,queue,critical-path --format csv)
for i in 1 2 3; do
    /usr/bin/time -f "own JVM: %e s, %M KB" "$root/vantage" "${analyze[@]}" > /dev/null
done
export VANTAGE_DAEMON=1
for i in $(seq 1 "$calls"); do
    /usr/bin/time -f "resident, call $i: %e s, %M KB" "$root/vantage" "${analyze[@]}" > /dev/null
done
pid="$("$root/vantage" daemon | sed -n 's/^pid \([0-9]*\) .*/\1/p')"
grep VmHWM "/proc/$pid/status" | sed 's/^/resident process, peak: /'
sleep 35 # past the collection the process makes thirty seconds after a call
grep VmRSS "/proc/$pid/status" | sed 's/^/resident process, resting: /'
"$root/vantage" daemon stop > /dev/null
grep -o 'exit [0-9]* in [0-9]* ms' "$VANTAGE_DAEMON_DIR"/*.log | awk '{print "resident process, call " NR ": " $4 " ms in the process"}'
rm -rf "$work"
