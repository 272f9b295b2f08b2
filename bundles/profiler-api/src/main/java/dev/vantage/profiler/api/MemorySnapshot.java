package dev.vantage.profiler.api;

import java.util.List;
import java.util.Objects;

/**
 * The state and recent history of a device allocator, in the structure of PyTorch's
 * {@code torch.cuda.memory._snapshot()}: the segments the allocator holds from its device with the blocks inside
 * them, and per device a bounded history of allocator actions. {@code torch/cuda/_memory_viz.py} and the
 * memory_viz page read it once it is written as a pickle.
 *
 * @param segments every segment held now, ordered by device and address
 * @param deviceTraces per device index, the recorded actions, oldest first; empty lists when history is off
 */
public record MemorySnapshot(List<Segment> segments, List<List<TraceEntry>> deviceTraces) {

    /** Copies the lists. */
    public MemorySnapshot {
        segments = List.copyOf(segments);
        deviceTraces = deviceTraces.stream().map(List::copyOf).toList();
    }

    /** A snapshot of an allocator that holds nothing and has recorded nothing, for device {@code index}. */
    public static MemorySnapshot empty(int index) {
        List<List<TraceEntry>> traces = new java.util.ArrayList<>();
        for (int i = 0; i <= index; i++) {
            traces.add(List.of());
        }
        return new MemorySnapshot(List.of(), traces);
    }

    /**
     * One segment obtained from the device.
     *
     * @param device the device index
     * @param address its first address
     * @param totalSize its size in bytes
     * @param allocatedSize the bytes of its allocated blocks
     * @param activeSize the bytes of its active blocks (allocated, or freed while a stream still uses them)
     * @param requestedSize the bytes asked for by the allocations of its allocated blocks
     * @param stream the stream whose allocations it serves; 0 is the default stream
     * @param segmentType {@code small} or {@code large}, the pool it belongs to
     * @param blocks its blocks in address order, covering it exactly
     */
    public record Segment(int device, long address, long totalSize, long allocatedSize, long activeSize,
            long requestedSize, long stream, String segmentType, List<Block> blocks) {

        /** Copies the blocks. */
        public Segment {
            Objects.requireNonNull(segmentType, "segmentType");
            blocks = List.copyOf(blocks);
        }
    }

    /** {@link Block#state()} of a block handed out. */
    public static final String ACTIVE_ALLOCATED = "active_allocated";
    /** {@link Block#state()} of a block freed while a stream still uses it (the name PyTorch's writer uses). */
    public static final String ACTIVE_PENDING_FREE = "active_pending_free";
    /** {@link Block#state()} of a free block. */
    public static final String INACTIVE = "inactive";

    /**
     * One block of a segment.
     *
     * @param address its first address
     * @param size its size in bytes
     * @param requestedSize the bytes asked for (0 for a free block)
     * @param state {@link #ACTIVE_ALLOCATED}, {@link #ACTIVE_PENDING_FREE} or {@link #INACTIVE}
     * @param frames where it was allocated, innermost first, when stacks were recorded; else empty
     */
    public record Block(long address, long size, long requestedSize, String state, List<Frame> frames) {

        /** Copies the frames. */
        public Block {
            Objects.requireNonNull(state, "state");
            frames = List.copyOf(frames);
        }
    }

    /**
     * One recorded allocator action, as PyTorch's {@code TraceEntry}.
     *
     * @param action {@code alloc}, {@code free_requested}, {@code free_completed}, {@code segment_alloc},
     *     {@code segment_free}, {@code oom} or {@code snapshot}
     * @param address the block's or segment's address; for {@code oom}, unused (0)
     * @param size the bytes concerned; for {@code oom}, the request
     * @param stream the stream; 0 is the default stream
     * @param timeUs microseconds since the Unix epoch
     * @param frames the allocating code, innermost first, when stacks are recorded; else empty
     * @param deviceFree for {@code oom}, the bytes the device still had free; else 0
     */
    public record TraceEntry(String action, long address, long size, long stream, long timeUs, List<Frame> frames,
            long deviceFree) {

        /** Copies the frames. */
        public TraceEntry {
            Objects.requireNonNull(action, "action");
            frames = List.copyOf(frames);
        }
    }

    /**
     * One frame of allocating code.
     *
     * @param filename the source file, with the package as its directory, such as {@code dev/vantage/nn/Linear.java}
     * @param line the line number, or 0 when unknown
     * @param name the class and method, such as {@code dev.vantage.nn.Linear.forward}
     */
    public record Frame(String filename, int line, String name) {

        /** Checks the names. */
        public Frame {
            Objects.requireNonNull(filename, "filename");
            Objects.requireNonNull(name, "name");
        }
    }
}
