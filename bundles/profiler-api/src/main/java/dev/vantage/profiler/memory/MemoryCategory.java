package dev.vantage.profiler.memory;

/**
 * What a block of memory holds, as torch's memory profiler categorises tensors, in torch's order: the ordinal is
 * torch's category index ({@code _CATEGORY_TO_INDEX}) that {@code export_memory_timeline} files use, with
 * {@link #UNKNOWN} (torch's {@code None}) last. A runtime tells the profiler the category of what a thread
 * allocates with {@link MemoryScope}.
 */
public enum MemoryCategory {
    /** A model parameter. */
    PARAMETER,
    /** Optimizer state, such as Adam's moments or SGD's momentum buffers. */
    OPTIMIZER_STATE,
    /** A model input: a batch moved to the device. */
    INPUT,
    /** Anything short-lived that is none of the others: backward intermediates, work done without gradients. */
    TEMPORARY,
    /** A forward intermediate computed while gradients are recorded. */
    ACTIVATION,
    /** A parameter's gradient. */
    GRADIENT,
    /** Autograd's own intermediates of the backward pass. */
    AUTOGRAD_DETAIL,
    /** Not known: nothing told the profiler, or the memory was allocated before the profile began. */
    UNKNOWN;

    private static final MemoryCategory[] ALL = values();

    /** Returns torch's name for the category: the constant's name, {@code Unknown} for {@link #UNKNOWN}. */
    public String torchName() {
        return this == UNKNOWN ? "Unknown" : name();
    }

    /**
     * Returns the category of an index, as {@link #ordinal()} gives it.
     *
     * @return the category, or {@link #UNKNOWN} for an index outside the range
     */
    public static MemoryCategory ofIndex(int index) {
        return index >= 0 && index < ALL.length ? ALL[index] : UNKNOWN;
    }
}
