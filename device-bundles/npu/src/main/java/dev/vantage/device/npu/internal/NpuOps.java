package dev.vantage.device.npu.internal;

import static dev.vantage.device.npu.driver.KernelType.AI_CORE;
import static dev.vantage.device.npu.driver.KernelType.AI_CPU;
import static dev.vantage.device.npu.driver.KernelType.AI_VECTOR_CORE;

import java.util.HashMap;
import java.util.Map;

import dev.vantage.device.npu.driver.KernelType;
import dev.vantage.device.npu.driver.NpuKernel;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.KernelOps;

/**
 * Which NPU operator computes each runtime op, and on which unit: matrix products and convolutions on the AI
 * Core's cube units, elementwise ops, reductions and normalisations on the vector cores, and the ops an NPU has
 * no AI Core kernel for (gathers, scatters, arg-max, losses, random masks) on the AI CPU. Block dim splits a
 * kernel's output over the unit's cores, a core per tile, as many cores as the unit has at most.
 */
final class NpuOps {

    /** The AI Core count and vector core count of the emulated device (an Ascend 910B-like part). */
    static final int AI_CORES = 24;
    static final int VECTOR_CORES = 48;
    private static final int CUBE_TILE = 16 * 16 * 16;
    private static final int VECTOR_TILE = 2048;

    private record Entry(String opType, KernelType type) {
    }

    private static final Map<String, Entry> OPS = new HashMap<>();

    static {
        vector(KernelOps.ADD, "Add");
        vector(KernelOps.SUB, "Sub");
        vector(KernelOps.MUL, "Mul");
        vector(KernelOps.DIV, "RealDiv");
        vector(KernelOps.POW, "Pow");
        vector(KernelOps.NEG, "Neg");
        vector(KernelOps.EXP, "Exp");
        vector(KernelOps.LOG, "Log");
        vector(KernelOps.SQRT, "Sqrt");
        vector(KernelOps.RELU, "Relu");
        vector(KernelOps.GELU, "Gelu");
        vector(KernelOps.TANH, "Tanh");
        vector(KernelOps.SIGMOID, "Sigmoid");
        vector(KernelOps.THRESHOLD_BACKWARD, "ReluGrad");
        vector(KernelOps.GELU_BACKWARD, "GeluGrad");
        vector(KernelOps.TANH_BACKWARD, "TanhGrad");
        vector(KernelOps.SIGMOID_BACKWARD, "SigmoidGrad");
        vector(KernelOps.ADDCMUL, "Addcmul");
        vector(KernelOps.ADDCDIV, "Addcdiv");
        vector(KernelOps.FILL_, "Fill");
        vector(KernelOps.CAT, "ConcatD");
        vector(KernelOps.SUM, "ReduceSum");
        vector(KernelOps.MEAN, "ReduceMean");
        vector(KernelOps.MAX_POOL2D_WITH_INDICES, "MaxPoolWithArgmaxV1");
        vector(KernelOps.MAX_POOL2D_WITH_INDICES_BACKWARD, "MaxPoolGradWithArgmaxV1");
        vector(KernelOps.SOFTMAX, "SoftmaxV2");
        vector(KernelOps.LOG_SOFTMAX, "LogSoftmaxV2");
        vector(KernelOps.SOFTMAX_BACKWARD_DATA, "SoftmaxGrad");
        vector(KernelOps.LOG_SOFTMAX_BACKWARD_DATA, "LogSoftmaxGrad");
        vector(KernelOps.NATIVE_LAYER_NORM, "LayerNormV3");
        vector(KernelOps.NATIVE_LAYER_NORM_BACKWARD, "LayerNormGrad");
        vector(KernelOps.NATIVE_DROPOUT_BACKWARD, "DropOutDoMask");
        OPS.put(KernelOps.MM, new Entry("MatMulV2", AI_CORE));
        OPS.put(KernelOps.ADDMM, new Entry("MatMulV3", AI_CORE));
        OPS.put(KernelOps.BMM, new Entry("BatchMatMulV2", AI_CORE));
        OPS.put(KernelOps.CONVOLUTION, new Entry("Conv2D", AI_CORE));
        OPS.put(KernelOps.CONVOLUTION_BACKWARD, new Entry("Conv2DBackprop", AI_CORE));
        OPS.put(KernelOps.INDEX_SELECT, new Entry("GatherV2", AI_CPU));
        OPS.put(KernelOps.INDEX_ADD_, new Entry("InplaceIndexAdd", AI_CPU));
        OPS.put(KernelOps.ARGMAX, new Entry("ArgMaxV2", AI_CPU));
        OPS.put(KernelOps.NLL_LOSS_FORWARD, new Entry("NLLLoss", AI_CPU));
        OPS.put(KernelOps.NLL_LOSS_BACKWARD, new Entry("NLLLossGrad", AI_CPU));
        OPS.put(KernelOps.NATIVE_DROPOUT, new Entry("DropOutGenMaskV3", AI_CPU));
    }

    private static void vector(String op, String opType) {
        OPS.put(op, new Entry(opType, AI_VECTOR_CORE));
    }

    private NpuOps() {
    }

    /** Returns true if the op is a kernel launch (not a copy or a fill done by the runtime's memset). */
    static boolean isKernel(String op) {
        return OPS.containsKey(op);
    }

    /**
     * Describes the launch of an op's kernel for a call.
     *
     * @throws IllegalArgumentException if the op has no NPU kernel
     */
    static NpuKernel kernel(String op, KernelCall call) {
        Entry e = OPS.get(op);
        if (e == null) {
            throw new IllegalArgumentException("no NPU kernel for " + op);
        }
        long work = call.outputCount() == 0 || call.output(0) == null ? 1 : call.output(0).numel();
        int blockDim = switch (e.type()) {
            case AI_CORE -> (int) Math.min(AI_CORES, Math.max(1, (work + CUBE_TILE - 1) / CUBE_TILE));
            case AI_VECTOR_CORE -> (int) Math.min(VECTOR_CORES, Math.max(1, (work + VECTOR_TILE - 1) / VECTOR_TILE));
            case AI_CPU -> 1;
        };
        return new NpuKernel(e.opType(), op, e.type(), blockDim);
    }
}
