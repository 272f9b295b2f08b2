# Whether a call of the vantage command goes to a resident analysis process (sourced by the repository's ./vantage;
# copied into the script of an assembled distribution). With VANTAGE_DAEMON=1 the verbs that read traces and write
# tables or pages run in a process that stays up between calls, so a call does not pay for a JVM's start, its class
# loading and its compilations each time (docs/benchmarks.md, "The analyses of one trace, next to HTA"); the client
# that talks to it loads a few classes only. 'vantage daemon' lists those processes, 'vantage daemon stop' ends them.
vantage_daemon_verb() {
    [ "${VANTAGE_DAEMON:-}" = 1 ] || return 1
    case "${1:-}" in
        analyze|report|compare|merge|convert|runs) return 0 ;;
    esac
    return 1
}
# the client's JVM: little to compile and little to collect
vantage_daemon_client="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData"
