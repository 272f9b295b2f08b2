package dev.vantage.tensor.distributed;

import java.util.Objects;

/**
 * One collective as a profiler shows it, with the fields of torch's {@code record_param_comms} event.
 *
 * @param sequenceNumber the collective's number in its group, from 0, the same on every rank
 * @param collective {@code allreduce}, {@code broadcast}, {@code allgather}, {@code reduce_scatter} or
 *     {@code barrier} (torch's "Collective name")
 * @param backend the backend that ran it, such as {@code gloo} or {@code hccl}
 * @param inNelems elements this rank sends in ("In msg nelems")
 * @param outNelems elements this rank receives out ("Out msg nelems")
 * @param groupSize the world size ("Group size")
 * @param dtype the element type as torch names it: {@code Float} or {@code Long}
 * @param processGroupName the group's name ("Process Group Name"), {@code 0} for the default group
 * @param processGroupDescription the group's description, {@code default_pg} for the default group
 * @param processGroupRanks the group's ranks as {@code [0, 1, 2, 3]}
 * @param rank this process's rank
 * @param threadId the id of the Java thread that called the collective, where its {@code record_param_comms} scope is
 * @param startNanos {@link System#nanoTime()} when the collective started running on the communication thread
 * @param endNanos {@link System#nanoTime()} when it ended, or -1 while it runs
 */
public record CollectiveInfo(long sequenceNumber, String collective, String backend, long inNelems, long outNelems,
        int groupSize, String dtype, String processGroupName, String processGroupDescription,
        String processGroupRanks, int rank, long threadId, long startNanos, long endNanos) {

    /** Checks that no text field is null. */
    public CollectiveInfo {
        Objects.requireNonNull(collective, "collective");
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(dtype, "dtype");
        Objects.requireNonNull(processGroupName, "processGroupName");
        Objects.requireNonNull(processGroupDescription, "processGroupDescription");
        Objects.requireNonNull(processGroupRanks, "processGroupRanks");
    }

    /** Returns this record with its end time set. */
    public CollectiveInfo ended(long nanos) {
        return new CollectiveInfo(sequenceNumber, collective, backend, inNelems, outNelems, groupSize, dtype,
                processGroupName, processGroupDescription, processGroupRanks, rank, threadId, startNanos, nanos);
    }
}
