package dev.vantage.tensor.nn;

import java.util.SplittableRandom;

import dev.vantage.tensor.Functional;
import dev.vantage.tensor.Tensor;

/** The parameterless layers: activations, pooling, flattening, dropout. */
public final class Layers {

    private Layers() {
    }

    /** {@code max(x, 0)}. */
    public static Module relu() {
        return new Module() {
            @Override
            public Tensor forward(Tensor x) {
                return x.relu();
            }

            @Override
            public String toString() {
                return "ReLU";
            }
        };
    }

    /** The exact GELU. */
    public static Module gelu() {
        return new Module() {
            @Override
            public Tensor forward(Tensor x) {
                return x.gelu();
            }

            @Override
            public String toString() {
                return "GELU";
            }
        };
    }

    /** Max pooling with a square kernel and stride equal to it. */
    public static Module maxPool2d(int kernel) {
        return new Module() {
            @Override
            public Tensor forward(Tensor x) {
                return Functional.maxPool2d(x, kernel, kernel, 0);
            }

            @Override
            public String toString() {
                return "MaxPool2d(" + kernel + ")";
            }
        };
    }

    /** Flattens every dimension after the first. */
    public static Module flatten() {
        return new Module() {
            @Override
            public Tensor forward(Tensor x) {
                return x.flatten(1);
            }

            @Override
            public String toString() {
                return "Flatten";
            }
        };
    }

    /** Dropout with probability {@code p} in training mode; each call draws a new mask from a seeded stream. */
    public static Module dropout(double p, long seed) {
        if (p < 0 || p >= 1) {
            throw new IllegalArgumentException("dropout probability must be in [0, 1), not " + p);
        }
        SplittableRandom seeds = new SplittableRandom(seed);
        return new Module() {
            @Override
            public Tensor forward(Tensor x) {
                long s;
                synchronized (seeds) {
                    s = seeds.nextLong();
                }
                return Functional.dropout(x, p, training(), s);
            }

            @Override
            public String toString() {
                return "Dropout(" + p + ")";
            }
        };
    }
}
