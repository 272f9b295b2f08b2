package dev.vantage.workloads.internal;

import java.util.SplittableRandom;

import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.Tensor;

/**
 * A generated, MNIST-shaped dataset: 28x28 single-channel images in 10 classes. Each class has a prototype made
 * of a few Gaussian blobs; a sample is its class's prototype, randomly scaled and shifted by a pixel, plus noise.
 * Learnable, so training losses fall, and reproducible: sample {@code i} depends only on the seed and {@code i}.
 */
final class SyntheticDigits {

    static final int SIDE = 28;
    static final int PIXELS = SIDE * SIDE;
    static final int CLASSES = 10;

    private final long seed;
    private final float[][] prototypes = new float[CLASSES][PIXELS];

    SyntheticDigits(long seed) {
        this.seed = seed;
        SplittableRandom random = new SplittableRandom(seed);
        for (float[] p : prototypes) {
            for (int blob = 0; blob < 3; blob++) {
                double cy = 5 + random.nextDouble() * 18;
                double cx = 5 + random.nextDouble() * 18;
                double width = 2 + random.nextDouble() * 3;
                for (int y = 0; y < SIDE; y++) {
                    for (int x = 0; x < SIDE; x++) {
                        double d2 = (y - cy) * (y - cy) + (x - cx) * (x - cx);
                        p[y * SIDE + x] += (float) Math.exp(-d2 / (2 * width * width));
                    }
                }
            }
        }
    }

    /**
     * A batch as images {@code [n, 1, 28, 28]} and int64 labels {@code [n]}, starting at sample {@code first}, in
     * host memory the CPU device's allocator counts, as a data loader's batch is.
     */
    Tensor[] batch(long first, int n) {
        Tensor imageTensor = Tensor.zeros(Device.CPU, DType.FLOAT32, n, 1, SIDE, SIDE);
        Tensor labelTensor = Tensor.zeros(Device.CPU, DType.INT64, n);
        float[] images = imageTensor.storage().floats();
        long[] labels = labelTensor.storage().longs();
        for (int i = 0; i < n; i++) {
            SplittableRandom random = new SplittableRandom(seed * 0x9E3779B97F4A7C15L + first + i);
            int label = random.nextInt(CLASSES);
            labels[i] = label;
            float scale = (float) (0.8 + 0.4 * random.nextDouble());
            int dy = random.nextInt(3) - 1;
            int dx = random.nextInt(3) - 1;
            float[] p = prototypes[label];
            for (int y = 0; y < SIDE; y++) {
                for (int x = 0; x < SIDE; x++) {
                    int sy = Math.min(SIDE - 1, Math.max(0, y + dy));
                    int sx = Math.min(SIDE - 1, Math.max(0, x + dx));
                    images[i * PIXELS + y * SIDE + x] = scale * p[sy * SIDE + sx]
                            + (float) (0.3 * random.nextGaussian());
                }
            }
        }
        return new Tensor[] {imageTensor, labelTensor};
    }
}
