# The JIT a call of the vantage command starts with (sourced by the repository's ./vantage; copied into the script of
# an assembled distribution). A verb that reads traces and has little to read is over before the optimizing compiler
# pays for itself: up to 64 MiB of input (a .gz counted eight times its size, a folder by its size on disk) it runs
# with the client compiler alone, which ends such a call in about 60 % of the time (docs/benchmarks.md, "The analyses
# of one trace, next to HTA"). Options in VANTAGE_JAVA_OPTS come after these and win (-XX:TieredStopAtLevel=4).
vantage_jit() {
    case "${1:-}" in
        analyze|report|compare|merge|convert) ;;
        *) return 0 ;;
    esac
    local bytes=0 size arg
    for arg in "${@:2}"; do
        if [ -f "$arg" ]; then
            size=$(wc -c < "$arg" 2>/dev/null) || size=0
            case "$arg" in *.gz) size=$((size * 8)) ;; esac
        elif [ -d "$arg" ]; then
            size=$(du -sk -- "$arg" 2>/dev/null | cut -f1) || true
            size=$(( ${size:-0} * 1024 ))
        else
            continue
        fi
        bytes=$((bytes + size))
    done
    # an input that cannot be read is the verb's to refuse, in its own words
    if [ "$bytes" -gt 0 ] && [ "$bytes" -le $((64 << 20)) ]; then
        echo "-XX:TieredStopAtLevel=1"
    fi
}
