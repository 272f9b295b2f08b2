package dev.vantage.device.cpu.internal;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.List;

import org.junit.ClassRule;
import org.junit.Test;

import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.nn.Layers;
import dev.vantage.tensor.nn.Linear;
import dev.vantage.tensor.nn.Module;
import dev.vantage.tensor.nn.Sequential;
import dev.vantage.tensor.optim.Adam;
import dev.vantage.tensor.optim.SGD;

/** Modules and optimizers on the CPU kernels, against torch's update formulas computed by hand. */
public class NnOptimTest {

    @ClassRule
    public static final CpuRuntime CPU = new CpuRuntime();

    @Test
    public void sequentialNamesParametersAsTorchDoes() {
        Module model = new Sequential(new Linear(3, 4, true, 1), Layers.relu(), new Linear(4, 2, false, 2));
        assertEquals(List.of("0.weight", "0.bias", "2.weight"), List.copyOf(model.namedParameters().keySet()));
        assertEquals(3 * 4 + 4 + 4 * 2, model.parameterCount());
        assertTrue(model.parameters().stream().allMatch(p -> p.requiresGrad() && p.isLeaf()));
        float bound = (float) (1 / Math.sqrt(3));
        for (float w : model.parameters().get(0).toFloatArray()) {
            assertTrue(w >= -bound && w < bound);
        }
        assertArrayEquals(new long[] {5, 2}, model.forward(Tensor.zeros(5, 3)).shape());
    }

    @Test
    public void sgdWithMomentumFollowsTorchsUpdate() {
        Tensor p = Tensor.of(new float[] {1, -2}, 2).requiresGrad(true);
        SGD sgd = new SGD(List.of(p), 0.1, 0.9, 0);
        // loss = sum(p * p): gradient 2p
        p.mul(p).sum().backward();
        sgd.step();
        // buf = g = [2, -4]; p = p - 0.1 buf = [0.8, -1.6]
        assertArrayEquals(new float[] {0.8f, -1.6f}, p.toFloatArray(), 1e-6f);
        sgd.zeroGrad();
        assertNull(p.grad());
        p.mul(p).sum().backward();
        sgd.step();
        // g = [1.6, -3.2]; buf = 0.9 [2, -4] + g = [3.4, -6.8]; p = [0.8 - 0.34, -1.6 + 0.68]
        assertArrayEquals(new float[] {0.46f, -0.92f}, p.toFloatArray(), 1e-6f);
    }

    @Test
    public void adamFollowsTorchsUpdate() {
        Tensor p = Tensor.of(new float[] {1, -2}, 2).requiresGrad(true);
        Adam adam = new Adam(List.of(p), 0.01);
        double[] value = {1, -2};
        double[] m = new double[2];
        double[] v = new double[2];
        for (int t = 1; t <= 3; t++) {
            adam.zeroGrad();
            p.mul(p).sum().backward();
            adam.step();
            for (int i = 0; i < 2; i++) {
                double g = 2 * value[i];
                m[i] = 0.9 * m[i] + 0.1 * g;
                v[i] = 0.999 * v[i] + 0.001 * g * g;
                double mHat = m[i] / (1 - Math.pow(0.9, t));   // torch: step size lr / (1 - b1^t)
                double denom = Math.sqrt(v[i]) / Math.sqrt(1 - Math.pow(0.999, t)) + 1e-8;
                value[i] -= 0.01 * mHat / denom;
            }
            assertArrayEquals("step " + t, new float[] {(float) value[0], (float) value[1]}, p.toFloatArray(),
                    1e-5f);
        }
    }

    @Test
    public void optimizersRefuseTensorsThatCannotBeOptimized() {
        assertThrows(IllegalArgumentException.class, () -> new SGD(List.of(Tensor.zeros(2)), 0.1, 0, 0));
        Tensor w = Tensor.zeros(2).requiresGrad(true);
        assertThrows(IllegalArgumentException.class, () -> new SGD(List.of(w.mul(2.0)), 0.1, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new Adam(List.of(w), -1));
    }
}
