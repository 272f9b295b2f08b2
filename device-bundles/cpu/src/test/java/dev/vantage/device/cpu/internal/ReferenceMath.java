package dev.vantage.device.cpu.internal;

/**
 * Slow, independent references for the special functions the kernels use: erf by its Maclaurin series near zero
 * and erfc by its continued fraction in the tail, both in double.
 */
final class ReferenceMath {

    private ReferenceMath() {
    }

    /** erf(x) = 2/sqrt(pi) * sum_n (-1)^n x^(2n+1) / (n! (2n+1)); only for |x| < 3, where it converges well. */
    static double erfSeries(double x) {
        double term = x;
        double sum = 0;
        for (int n = 0; n < 200; n++) {
            sum += term / (2 * n + 1);
            term *= -x * x / (n + 1);
        }
        return 2 / Math.sqrt(Math.PI) * sum;
    }

    /** erfc(z) for z >= 2 by Laplace's continued fraction, evaluated from the tail. */
    static double erfcFraction(double z) {
        double k = z;
        for (int n = 400; n >= 1; n--) {
            k = z + n / 2.0 / k;
        }
        return Math.exp(-z * z) / (Math.sqrt(Math.PI) * k);
    }

    static double erfc(double z) {
        if (z >= 2) {
            return erfcFraction(z);
        }
        if (z <= -2) {
            return 2 - erfcFraction(-z);
        }
        return 1 - erfSeries(z);
    }

    static double erf(double z) {
        return Math.abs(z) < 2 ? erfSeries(z) : 1 - erfc(z);
    }

    /** The exact GELU, x * Phi(x). */
    static double gelu(double x) {
        return 0.5 * x * erfc(-x / Math.sqrt(2));
    }

    /** d/dx of x * Phi(x) = Phi(x) + x * phi(x). */
    static double geluDerivative(double x) {
        return 0.5 * erfc(-x / Math.sqrt(2)) + x * Math.exp(-x * x / 2) / Math.sqrt(2 * Math.PI);
    }
}
