package dev.vantage.device.mps.internal;

import java.util.Set;

import dev.vantage.device.mps.driver.KernelPath;
import dev.vantage.device.mps.driver.MetalKernel;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.KernelOps;

/**
 * How each runtime op is encoded on MPS: matrix products, convolutions, pooling, reductions, softmaxes,
 * normalisations and losses as MPSGraph executables; elementwise ops, gathers, scatters, concatenation and
 * dropout as Metal compute kernels. A kernel is named by its op and dtype, such as {@code addmm_f32}, and
 * dispatched over a grid of one thread per output element.
 */
final class MpsOps {

    private static final Set<String> GRAPH = Set.of(KernelOps.MM, KernelOps.ADDMM, KernelOps.BMM,
            KernelOps.CONVOLUTION, KernelOps.CONVOLUTION_BACKWARD, KernelOps.MAX_POOL2D_WITH_INDICES,
            KernelOps.MAX_POOL2D_WITH_INDICES_BACKWARD, KernelOps.SUM, KernelOps.MEAN, KernelOps.ARGMAX,
            KernelOps.SOFTMAX, KernelOps.LOG_SOFTMAX, KernelOps.SOFTMAX_BACKWARD_DATA,
            KernelOps.LOG_SOFTMAX_BACKWARD_DATA, KernelOps.NATIVE_LAYER_NORM, KernelOps.NATIVE_LAYER_NORM_BACKWARD,
            KernelOps.NLL_LOSS_FORWARD, KernelOps.NLL_LOSS_BACKWARD);

    private MpsOps() {
    }

    /**
     * Describes the kernel of an op for a call.
     *
     * @throws IllegalArgumentException if the op is not a kernel of {@link KernelOps}, or is a copy or a fill,
     *     which are blits
     */
    static MetalKernel kernel(String op, KernelCall call) {
        if (!KernelOps.ALL.contains(op) || op.equals(KernelOps.COPY_) || op.equals(KernelOps.ZERO_)) {
            throw new IllegalArgumentException("no MPS kernel for " + op);
        }
        KernelPath path = GRAPH.contains(op) ? KernelPath.GRAPH : KernelPath.KERNEL;
        return new MetalKernel(baseName(op) + "_" + dtypeSuffix(call), op, path, Math.max(1, work(call)));
    }

    /** {@code aten::_log_softmax} becomes {@code log_softmax}, {@code aten::index_add_} {@code index_add}. */
    static String baseName(String op) {
        String name = op.substring(op.indexOf("::") + 2);
        int from = 0;
        int to = name.length();
        while (from < to && name.charAt(from) == '_') {
            from++;
        }
        while (to > from && name.charAt(to - 1) == '_') {
            to--;
        }
        return name.substring(from, to);
    }

    private static String dtypeSuffix(KernelCall call) {
        DType dtype = DType.FLOAT32;
        if (call.outputCount() > 0 && call.output(0) != null) {
            dtype = call.output(0).dtype();
        } else if (call.inputCount() > 0 && call.input(0) != null) {
            dtype = call.input(0).dtype();
        }
        return switch (dtype) {
            case FLOAT32 -> "f32";
            case INT64 -> "i64";
            case BOOL -> "b8";
        };
    }

    private static long work(KernelCall call) {
        return call.outputCount() == 0 || call.output(0) == null ? 1 : call.output(0).numel();
    }
}
