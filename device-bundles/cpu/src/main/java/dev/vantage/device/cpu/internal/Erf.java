package dev.vantage.device.cpu.internal;

/**
 * The error function and its complement in double precision, by W. J. Cody's rational Chebyshev approximations
 * (Math. Comp. 23, 1969): {@code erf} near zero, {@code erfc} beyond, each accurate to about 1e-13 relative, so
 * that {@code erfc} keeps its digits far into the tail where {@code 1 - erf} would have none. GELU needs exactly
 * that: {@code x * Phi(x)} for very negative x is a tiny tail value. Stateless.
 */
final class Erf {

    private static final double THRESHOLD = 0.46875;
    private static final double INV_SQRT_PI = 0.56418958354775628695;
    private static final double INV_SQRT2 = 0.70710678118654752440;
    private static final double INV_SQRT_2PI = 0.39894228040143267794;

    // erf(x) = x * A(x^2) / B(x^2) for |x| <= 0.46875
    private static final double[] A = {3.16112374387056560e00, 1.13864154151050156e02, 3.77485237685302021e02,
        3.20937758913846947e03, 1.85777706184603153e-1};
    private static final double[] B = {2.36012909523441209e01, 2.44024637934444173e02, 1.28261652607737228e03,
        2.84423683343917062e03};
    // erfc(x) = exp(-x^2) * C(x) / D(x) for 0.46875 < x <= 4
    private static final double[] C = {5.64188496988670089e-1, 8.88314979438837594e00, 6.61191906371416295e01,
        2.98635138197400131e02, 8.81952221241769090e02, 1.71204761263407058e03, 2.05107837782607147e03,
        1.23033935479799725e03, 2.15311535474403846e-8};
    private static final double[] D = {1.57449261107098347e01, 1.17693950891312499e02, 5.37181101862009858e02,
        1.62138957456669019e03, 3.29079923573345963e03, 4.36261909014324716e03, 3.43936767414372164e03,
        1.23033935480374942e03};
    // erfc(x) = exp(-x^2) / x * (1 / sqrt(pi) + P(1/x^2) / (x^2 Q(1/x^2))) for x > 4
    private static final double[] P = {3.05326634961232344e-1, 3.60344899949804439e-1, 1.25781726111229246e-1,
        1.60837851487422766e-2, 6.58749161529837803e-4, 1.63153871373020978e-2};
    private static final double[] Q = {2.56852019228982242e00, 1.87295284992346725e00, 5.27905102951428412e-1,
        6.05183413124413191e-2, 2.33520497626869185e-3};

    private Erf() {
    }

    /** The error function. */
    static double erf(double x) {
        double y = Math.abs(x);
        if (y <= THRESHOLD) {
            return nearZero(x);
        }
        double c = tail(y);
        return x > 0 ? 1 - c : c - 1;
    }

    /** The complementary error function {@code 1 - erf(x)}, accurate also where it is tiny. */
    static double erfc(double x) {
        double y = Math.abs(x);
        if (y <= THRESHOLD) {
            return 1 - nearZero(x);
        }
        double c = tail(y);
        return x > 0 ? c : 2 - c;
    }

    /** The standard normal distribution function Phi(x) = P(Z <= x). */
    static double normalCdf(double x) {
        return 0.5 * erfc(-x * INV_SQRT2);
    }

    /** The standard normal density. */
    static double normalPdf(double x) {
        return INV_SQRT_2PI * Math.exp(-0.5 * x * x);
    }

    private static double nearZero(double x) {
        double z = x * x;
        double num = A[4] * z;
        double den = z;
        for (int i = 0; i < 3; i++) {
            num = (num + A[i]) * z;
            den = (den + B[i]) * z;
        }
        return x * (num + A[3]) / (den + B[3]);
    }

    /** erfc(y) for y > THRESHOLD. */
    private static double tail(double y) {
        double r;
        if (y <= 4) {
            double num = C[8] * y;
            double den = y;
            for (int i = 0; i < 7; i++) {
                num = (num + C[i]) * y;
                den = (den + D[i]) * y;
            }
            r = (num + C[7]) / (den + D[7]);
        } else {
            if (y >= 27) {
                return 0;   // below the smallest double
            }
            double z = 1 / (y * y);
            double num = P[5] * z;
            double den = z;
            for (int i = 0; i < 4; i++) {
                num = (num + P[i]) * z;
                den = (den + Q[i]) * z;
            }
            r = (INV_SQRT_PI - z * (num + P[4]) / (den + Q[4])) / y;
        }
        // Cody splits exp(-y^2) in two to keep the last double digits; the rounding of y^2 costs at most 1e-13
        // relative here, far below float's resolution, so one exp does
        return Math.exp(-y * y) * r;
    }
}
