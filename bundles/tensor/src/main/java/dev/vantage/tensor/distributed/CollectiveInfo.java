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

    /**
     * Returns the facts a device's communication kernel carries, as torch copies them from
     * {@code record_param_comms} onto it: collective name, message sizes, group size, dtype and the process group.
     */
    public java.util.Map<String, String> kernelArgs() {
        java.util.Map<String, String> args = new java.util.LinkedHashMap<>();
        args.put("Collective name", collective);
        args.put("In msg nelems", Long.toString(inNelems));
        args.put("Out msg nelems", Long.toString(outNelems));
        args.put("Group size", Integer.toString(groupSize));
        args.put("dtype", dtype);
        args.put("Process Group Name", processGroupName);
        args.put("Process Group Description", processGroupDescription);
        args.put("Process Group Ranks", processGroupRanks);
        return args;
    }

    /**
     * Returns the collective as the backend's scope names it after the colon, as in {@code nccl:all_reduce}:
     * {@code all_reduce}, {@code broadcast}, {@code all_gather}, {@code reduce_scatter} or {@code barrier}.
     */
    public String scopeName() {
        for (Collective.Kind k : Collective.Kind.values()) {
            if (k.collectiveName.equals(collective)) {
                return k.scopeName;
            }
        }
        return collective;
    }

    /** Returns this record with its end time set. */
    public CollectiveInfo ended(long nanos) {
        return new CollectiveInfo(sequenceNumber, collective, backend, inNelems, outNelems, groupSize, dtype,
                processGroupName, processGroupDescription, processGroupRanks, rank, threadId, startNanos, nanos);
    }
}
