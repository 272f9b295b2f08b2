package dev.vantage.trace.engine.summary;

/**
 * The device work of one name in a trace: kernels, copies and fills, grouped by name or by name and the host
 * operator that launched them. Times are nanoseconds.
 *
 * @param name the kernel's name, such as {@code MatMulV3} or {@code Memcpy HtoD (Pageable -> Device)}; never null
 * @param type what it is: {@code kernel}, {@code memcpy}, {@code memset} or {@code communication} (work that moves
 *     data between ranks: HCCL's {@code hcom_*}, NCCL's kernels, or any carrying a {@code Collective name})
 * @param op the name of the host operator that launched it (by {@code External id}), the empty string when no
 *     operator in the trace launched it; null when grouped by name only
 * @param count how many executions
 * @param totalNanos their time, summed
 * @param minNanos the shortest
 * @param maxNanos the longest
 * @param meanNanos {@code totalNanos / count}, rounded down
 * @param p99Nanos the 99th percentile, by nearest rank
 */
public record KernelStats(String name, String type, String op, long count, long totalNanos, long minNanos,
        long maxNanos, long meanNanos, long p99Nanos) {
}
