package dev.vantage.tensor.spi;

import java.util.Objects;

/**
 * Host memory holding float32 values, the storage of CPU tensors. Kernels read and write {@link #array()} directly.
 */
public final class FloatStorage {

    private final float[] values;

    /**
     * Wraps an array without copying it.
     *
     * @param values not null
     */
    public FloatStorage(float[] values) {
        this.values = Objects.requireNonNull(values, "values");
    }

    /** Returns the backing array; writes are visible to every tensor sharing this storage. */
    public float[] array() {
        return values;
    }

    /** Returns the number of values. */
    public int size() {
        return values.length;
    }
}
