package dev.vantage.tensor.distributed;

/**
 * One collective call as the ring sees it: which one, its sequence number in the group, and the group's timeout
 * as messages print it.
 */
record Collective(Kind kind, int sequence, String timeoutText) {

    /** The collectives, with the names torch's profiles give them. */
    enum Kind {
        ALLREDUCE("allreduce", "all_reduce"),
        BROADCAST("broadcast", "broadcast"),
        ALLGATHER("allgather", "all_gather"),
        REDUCE_SCATTER("reduce_scatter", "reduce_scatter"),
        BARRIER("barrier", "barrier");

        /** The "Collective name" of torch's {@code record_param_comms}. */
        final String collectiveName;
        /** The suffix of the backend's scope, as in {@code gloo:all_reduce}. */
        final String scopeName;

        Kind(String collectiveName, String scopeName) {
            this.collectiveName = collectiveName;
            this.scopeName = scopeName;
        }
    }

    String name() {
        return kind.collectiveName;
    }

    int code() {
        return kind.ordinal();
    }

    /** {@code rank 0: allreduce}, how every message about it starts. */
    String prefix(int rank) {
        return "rank " + rank + ": " + kind.collectiveName;
    }

    /** The name of a collective's code, for a frame from a rank that called another one. */
    static String nameOf(int code) {
        Kind[] kinds = Kind.values();
        return code >= 0 && code < kinds.length ? kinds[code].collectiveName : "unknown collective " + code;
    }

    /** A duration as messages print it: {@code 60 s}, {@code 1.5 s} or {@code 250 ms}. */
    static String durationText(long millis) {
        if (millis < 1000) {
            return millis + " ms";
        }
        return millis % 1000 == 0 ? millis / 1000 + " s" : String.format(java.util.Locale.ROOT, "%.1f s",
                millis / 1000.0);
    }
}
