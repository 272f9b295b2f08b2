package dev.vantage.trace.engine.summary;

/**
 * The communication device work of one collective (the TensorBoard plugin's communication operations table).
 *
 * @param name the collective as c10d names it, in lower case without separators ({@code allreduce},
 *     {@code allgather}, {@code broadcast}): the work's {@code Collective name}, else its launching operator's
 *     ({@code nccl:all_reduce}), else its kernel's ({@code ncclKernel_AllReduce_...}); {@code other} when none says
 * @param calls how many pieces of device work
 * @param bytes the message bytes summed over the calls whose size the trace gives ({@code In msg nelems} times the
 *     size of {@code dtype}, else the launching operator's {@code Input Dims} times {@code Input type}'s sizes)
 * @param sizedCalls how many calls {@code bytes} covers
 * @param deviceNanos the work's device time, summed
 */
public record CollectiveStats(String name, long calls, long bytes, long sizedCalls, long deviceNanos) {
}
