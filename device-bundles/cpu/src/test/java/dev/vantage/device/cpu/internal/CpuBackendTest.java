package dev.vantage.device.cpu.internal;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;

import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.function.Supplier;

import org.junit.Test;

import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.Functional;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.Storage;

/**
 * The backend as the runtime sees it: every declared kernel registered, host memory only, and ops with their
 * gradients through the public tensor API, checked against central differences of the forward pass.
 */
public class CpuBackendTest extends KernelTestSupport {

    @Test
    public void registersAKernelForEveryDeclaredOp() {
        assertEquals(new TreeSet<>(KernelOps.ALL), new TreeSet<>(kernels.keySet()));
    }

    @Test
    public void allocatesCountedHostMemoryOfEveryDtype() {
        Storage s = backend.allocate(Device.CPU, DType.INT64, 5);
        assertEquals(DType.INT64, s.dtype());
        assertEquals(Device.CPU, s.device());
        assertEquals(5, s.size());
        assertEquals(16 + 40L, (long) backend.stats().values().get("allocated_bytes.all.allocated"));
    }

    @Test
    public void refusesToAllocateOnAnotherDevice() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> backend.allocate(new Device("cpu", 1), DType.FLOAT32, 4));
        assertEquals("the cpu backend cannot allocate on device cpu:1; it has only cpu:0", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> backend.allocate(new Device("npu", 0), DType.BOOL, 1));
    }

    /**
     * Checks d(sum(f(x) * weights))/dx from backward() against central differences in float, at 1e-3 relative
     * as torch's gradcheck does in single precision.
     */
    private static void gradcheck(String what, Tensor x, Function<Tensor, Tensor> f) {
        Tensor leaf = x.copy().requiresGrad(true);
        Tensor y = f.apply(leaf);
        Tensor weights = rand(99, y.shape());
        y.mul(weights).sum().backward();
        float[] analytic = leaf.grad().toFloatArray();
        float[] v = x.toFloatArray();
        float h = 1e-2f;
        for (int i = 0; i < v.length; i++) {
            float[] up = v.clone();
            float[] down = v.clone();
            up[i] += h;
            down[i] -= h;
            double fu = f.apply(Tensor.of(up, x.shape())).mul(weights).sum().item();
            double fd = f.apply(Tensor.of(down, x.shape())).mul(weights).sum().item();
            double numeric = (fu - fd) / ((double) up[i] - down[i]);
            assertEquals(what + " d/dx[" + i + "]", numeric, analytic[i], 1e-3 * Math.abs(numeric) + 2e-3);
        }
    }

    @Test
    public void gradientsOfActivationsAgreeWithCentralDifferences() {
        Tensor x = Tensor.of(new float[] {-4.5f, -3, -1.2f, -0.3f, 0.2f, 0.9f, 2.1f, 3.7f}, 2, 4);
        gradcheck("gelu", x, Tensor::gelu);
        gradcheck("tanh", x, Tensor::tanh);
        gradcheck("sigmoid", x, Tensor::sigmoid);
        gradcheck("softmax", x, t -> t.softmax(1));
        gradcheck("log_softmax of the transpose", x, t -> t.t().logSoftmax(1));
    }

    @Test
    public void gradientsOfLayersAgreeWithCentralDifferences() {
        Tensor image = rand(1, 2, 2, 5, 5);
        Tensor weight = rand(2, 3, 2, 3, 3);
        gradcheck("conv2d input", image, t -> Functional.conv2d(t, weight, null, 2, 1));
        gradcheck("conv2d weight", weight, t -> Functional.conv2d(image, t, null, 1, 1));
        float[] distinct = new float[100];
        for (int i = 0; i < 100; i++) {
            distinct[i] = (i * 37 % 100) * 0.1f - 5;             // 0.1 apart: a step of h cannot change a max
        }
        gradcheck("max_pool2d", Tensor.of(distinct, 2, 2, 5, 5), t -> Functional.maxPool2d(t, 3, 2, 1));
        gradcheck("layer_norm", rand(3, 3, 4), t -> Functional.layerNorm(t, new long[] {4}, null, null, 1e-5));
        Tensor target = Tensor.ofLongs(new long[] {2, 0, 1}, 3);
        gradcheck("cross_entropy", rand(4, 3, 4), t -> Functional.crossEntropy(t, target));
        Tensor w = rand(5, 3, 4);
        gradcheck("linear", rand(6, 2, 4), t -> Functional.linear(t, w, null));
        gradcheck("embedding", rand(7, 4, 3), t -> Functional.embedding(t, Tensor.ofLongs(new long[] {3, 1, 3},
                3)));
    }

    /** Runs a mix of kernels on shared inputs from several threads at once; each must match its serial result. */
    @Test
    public void kernelsAgreeWithThemselvesWhenManyThreadsRunThemAtOnce() throws Exception {
        Tensor a = rand(11, 96, 80);
        Tensor b = rand(12, 96, 72).t();
        Tensor image = rand(13, 6, 3, 10, 10);
        Tensor weight = rand(14, 5, 3, 3, 3);
        long[][] conv = ints(list(1, 1), list(1, 1), list(1, 1));
        List<Supplier<float[]>> work = List.of(
            () -> run(KernelOps.MM, new Tensor[] {b, a}, null, null, 72, 80).toFloatArray(),
            () -> run(KernelOps.CONVOLUTION, new Tensor[] {image, weight, null}, null, conv, 6, 5, 10, 10)
                    .toFloatArray(),
            () -> run(KernelOps.SOFTMAX, new Tensor[] {b}, null, ints(list(0)), 72, 96).toFloatArray(),
            () -> run(KernelOps.ADD, new Tensor[] {a, a.slice(0, 0, 1)}, new double[] {0, 2}, null, 96, 80)
                    .toFloatArray());
        float[][] serial = new float[work.size()][];
        for (int i = 0; i < serial.length; i++) {
            serial[i] = work.get(i).get();
        }
        ExecutorService threads = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                int first = t;
                done.add(threads.submit(() -> {
                    for (int round = 0; round < 10; round++) {
                        int i = (first + round) % serial.length;
                        assertArrayEquals("work " + i, serial[i], work.get(i).get(), 0);
                    }
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
        } finally {
            threads.shutdown();
        }
    }

    @Test
    public void runtimeOpsOnViewsUseTheseKernels() {
        Tensor a = rand(8, 3, 2);
        Tensor b = rand(9, 3, 4);
        Tensor product = a.t().matmul(b);                         // [2, 4]
        for (int i = 0; i < 2; i++) {
            for (int j = 0; j < 4; j++) {
                double s = 0;
                for (int p = 0; p < 3; p++) {
                    s += (double) get(a, p, i) * get(b, p, j);
                }
                assertEquals(s, product.toFloatArray()[i * 4 + j], 1e-5);
            }
        }
        Tensor x = rand(10, 2, 3);
        x.t().add_(Tensor.ones(2), 3);                            // a column each row: broadcast in place
        float[] before = rand(10, 2, 3).toFloatArray();
        float[] after = x.toFloatArray();
        for (int i = 0; i < 6; i++) {
            assertEquals(before[i] + 3, after[i], 1e-6);
        }
        assertEquals(6L, Tensor.arange(4).to(DType.FLOAT32).sum().item(), 0);
    }
}
