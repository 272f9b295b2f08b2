package dev.vantage.trace.engine.summary;

import java.util.Locale;

/**
 * Whether a kernel runs on Tensor Cores, from its name: the trace records no such flag. NVIDIA's libraries name the
 * matrix-instruction shape in their kernels (cuBLAS/cuDNN {@code h884}, {@code s1688}, {@code i8816},
 * {@code 16816}, CUTLASS's {@code tensorop}, {@code xmma}, {@code hmma}, {@code wmma}, Hopper's {@code gmma}),
 * which is the rule the TensorBoard plugin's Tensor Core column also rests on; ROCm's MFMA kernels say
 * {@code mfma}. A kernel named otherwise counts as not using them.
 */
public final class TensorCores {

    private static final String[] MARKERS = {"884", "1688", "16816", "8816", "tensorop", "xmma", "hmma", "wmma",
        "gmma", "mfma", "imma"};

    private TensorCores() {
    }

    /** Returns whether a kernel of this name runs on Tensor Cores (or ROCm's matrix cores). */
    public static boolean uses(String kernelName) {
        String n = kernelName.toLowerCase(Locale.ROOT);
        for (String m : MARKERS) {
            if (n.contains(m)) {
                return true;
            }
        }
        return false;
    }
}
