package dev.vantage.device.npu.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

import dev.vantage.device.npu.driver.KernelType;
import dev.vantage.device.npu.driver.NpuKernel;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.Storage;

/** Each op's NPU operator, compute unit and block dim. */
public class NpuOpsTest {

    private static KernelCall call(String op, int outputElements) {
        Tensor out = Tensor.wrap(Storage.create(Device.CPU, DType.FLOAT32, outputElements), outputElements);
        return new KernelCall(op, new Tensor[0], new Tensor[] {out}, null, null);
    }

    @Test
    public void productsRunOnTheAiCoreElementwiseOnTheVectorCoresAndGathersOnTheAiCpu() {
        assertEquals(new NpuKernel("MatMulV2", KernelOps.MM, KernelType.AI_CORE, 1),
                NpuOps.kernel(KernelOps.MM, call(KernelOps.MM, 64)));
        assertEquals(KernelType.AI_CORE, NpuOps.kernel(KernelOps.CONVOLUTION, call("c", 1)).type());
        assertEquals(KernelType.AI_VECTOR_CORE, NpuOps.kernel(KernelOps.ADD, call("a", 1)).type());
        assertEquals(KernelType.AI_VECTOR_CORE, NpuOps.kernel(KernelOps.NATIVE_LAYER_NORM, call("l", 1)).type());
        assertEquals(KernelType.AI_CPU, NpuOps.kernel(KernelOps.INDEX_SELECT, call("i", 1)).type());
        assertEquals(KernelType.AI_CPU, NpuOps.kernel(KernelOps.NLL_LOSS_FORWARD, call("n", 1)).type());
    }

    @Test
    public void blockDimIsATileACoreUpToTheUnitsCores() {
        assertEquals(2, NpuOps.kernel(KernelOps.MM, call("m", 4096 + 1)).blockDim());
        assertEquals(NpuOps.AI_CORES, NpuOps.kernel(KernelOps.MM, call("m", 1 << 22)).blockDim());
        assertEquals(3, NpuOps.kernel(KernelOps.ADD, call("a", 2 * 2048 + 5)).blockDim());
        assertEquals(NpuOps.VECTOR_CORES, NpuOps.kernel(KernelOps.ADD, call("a", 1 << 22)).blockDim());
        assertEquals(1, NpuOps.kernel(KernelOps.ARGMAX, call("x", 1 << 22)).blockDim());
    }

    @Test
    public void everyOpButCopyAndZeroHasAKernelAndOthersAreRefused() {
        for (String op : KernelOps.ALL) {
            boolean memoryOp = op.equals(KernelOps.COPY_) || op.equals(KernelOps.ZERO_);
            assertEquals(op, !memoryOp, NpuOps.isKernel(op));
        }
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> NpuOps.kernel(KernelOps.COPY_, call("c", 1)));
        assertTrue(e.getMessage(), e.getMessage().contains("aten::copy_"));
    }
}
