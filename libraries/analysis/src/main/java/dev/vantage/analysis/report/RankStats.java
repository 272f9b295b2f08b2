package dev.vantage.analysis.report;

/**
 * One rank's (one trace's) steps in the per-rank view. Times are nanoseconds.
 *
 * @param rank the rank from the trace's {@code distributedInfo}, or -1 when it has none
 * @param source the trace file's name
 * @param steps how many steps it recorded
 * @param meanStepNanos the mean step time ({@code TraceStep.durationNanos()} of its steps); 0 without steps
 * @param maxStepNanos the longest step
 * @param meanKernelNanos the mean of the steps' kernel time
 * @param meanCommunicationNanos the mean of the steps' communication time (not overlapped by compute)
 * @param meanOtherNanos the mean of the rest of the steps: memcpy, memset, runtime, CPU op and other
 * @param ratioToMedian the mean step time over the median of all ranks' mean step times; 0 when that median is 0
 * @param straggler whether this rank is a straggler by the definition {@code vantage analyze} shares
 *     ({@link dev.vantage.analysis.Stragglers}: at least {@code RATIO} times the median)
 */
public record RankStats(int rank, String source, int steps, double meanStepNanos, long maxStepNanos,
        long meanKernelNanos, long meanCommunicationNanos, long meanOtherNanos, double ratioToMedian,
        boolean straggler) {
}
