package dev.vantage.device.spyre.driver;

import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * One compiled Spyre kernel, as the compiler hands it to the runtime to launch.
 *
 * @param name the kernel's name in traces, at most {@link #MAX_NAME_BYTES} bytes of UTF-8, such as
 *     {@code spyre_kernel_v1_mm_<key>}
 * @param op the runtime op it computes, a name from {@link dev.vantage.tensor.spi.KernelOps}
 * @param provenanceKey the stable key that identifies the compiled kernel, {@link #KEY_LENGTH} characters; traces
 *     carry it as {@code provenance_key}
 */
public record SpyreKernel(String name, String op, String provenanceKey) {

    /** The longest name an activity record holds: a 128-byte field less its terminating NUL. */
    public static final int MAX_NAME_BYTES = 127;
    /** The length of a provenance key: 80 bits in base32. */
    public static final int KEY_LENGTH = 16;

    /**
     * Checks the fields.
     *
     * @throws IllegalArgumentException if the name is empty or too long, or the key is not 16 characters
     */
    public SpyreKernel {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(op, "op");
        Objects.requireNonNull(provenanceKey, "provenanceKey");
        int bytes = name.getBytes(StandardCharsets.UTF_8).length;
        if (bytes == 0 || bytes > MAX_NAME_BYTES) {
            throw new IllegalArgumentException("a kernel name must have 1 to " + MAX_NAME_BYTES + " bytes, not "
                    + bytes + ": '" + name + "'");
        }
        if (provenanceKey.length() != KEY_LENGTH) {
            throw new IllegalArgumentException("a provenance key has " + KEY_LENGTH + " characters, not "
                    + provenanceKey.length() + ": '" + provenanceKey + "'");
        }
    }
}
