package dev.vantage.trace.engine;

/**
 * Floating-point operations of an op by formula, from its input shapes, as torch's {@code with_flops} counts
 * them: a multiply-add is two operations; an elementwise op one per output element. Ops without a formula count 0.
 */
public final class Flops {

    private Flops() {
    }

    /** Returns true for the ops this class has a formula for; their shapes are recorded under withFlops. */
    public static boolean hasFormula(String op) {
        return switch (op) {
            case "aten::matmul", "aten::mm", "aten::bmm", "aten::addmm", "aten::linear", "aten::add",
                    "aten::mul", "aten::sub", "aten::div" -> true;
            default -> false;
        };
    }

    /** Returns the count, or 0 when the op has no formula or the shapes do not fit it. */
    static long of(String op, long[][] shapes) {
        return switch (op) {
            case "aten::matmul", "aten::mm", "aten::bmm" -> shapes.length >= 2 ? matmul(shapes[0], shapes[1]) : 0;
            case "aten::addmm" -> shapes.length >= 3 ? matmul(shapes[1], shapes[2]) : 0;
            case "aten::linear" -> shapes.length >= 2 ? linear(shapes[0], shapes[1]) : 0;
            case "aten::add", "aten::mul", "aten::sub", "aten::div" -> elementwise(shapes);
            default -> 0;
        };
    }

    /** {@code [..., m, k] x [..., k, n]}: 2·batch·m·k·n, the batch broadcast over both inputs. */
    static long matmul(long[] a, long[] b) {
        if (a.length < 1 || b.length < 1) {
            return 0;
        }
        long[] x = a.length == 1 ? new long[] {1, a[0]} : a;
        long[] y = b.length == 1 ? new long[] {b[0], 1} : b;
        long m = x[x.length - 2];
        long k = x[x.length - 1];
        long n = y[y.length - 1];
        if (y[y.length - 2] != k) {
            return 0;
        }
        long batch = 1;
        int batchDims = Math.max(x.length, y.length) - 2;
        for (int i = 0; i < batchDims; i++) {
            long dx = i < batchDims - (x.length - 2) ? 1 : x[i - (batchDims - (x.length - 2))];
            long dy = i < batchDims - (y.length - 2) ? 1 : y[i - (batchDims - (y.length - 2))];
            batch *= Math.max(dx, dy);
        }
        return 2 * batch * m * k * n;
    }

    /** input {@code [..., in]}, weight {@code [out, in]}: 2·rows·in·out. */
    static long linear(long[] input, long[] weight) {
        if (input.length < 1 || weight.length != 2 || input[input.length - 1] != weight[1]) {
            return 0;
        }
        long rows = 1;
        for (int i = 0; i < input.length - 1; i++) {
            rows *= input[i];
        }
        return 2 * rows * weight[1] * weight[0];
    }

    /** One operation per element of the broadcast output. */
    static long elementwise(long[][] shapes) {
        int rank = 0;
        for (long[] s : shapes) {
            rank = Math.max(rank, s.length);
        }
        long n = 1;
        for (int d = 0; d < rank; d++) {
            long size = 1;
            for (long[] s : shapes) {
                int i = d - (rank - s.length);
                if (i >= 0 && s[i] != 1) {
                    size = s[i];
                }
            }
            n *= size;
        }
        return shapes.length == 0 ? 0 : n;
    }
}
