package dev.vantage.tensor.nn;

import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.TensorScope;

/**
 * Multi-head self-attention over {@code [B, T, D]}, like torch's {@code MultiheadAttention} with batch first:
 * one input projection to queries, keys and values, scaled dot-product attention per head (optionally causal, so
 * a position sees only earlier ones), and an output projection.
 */
public final class Attention extends Module {

    private final int dim;
    private final int heads;
    private final boolean causal;
    private final Linear in;
    private final Linear out;

    /**
     * @param dim model width, divisible by {@code heads}
     * @param heads number of heads
     * @param causal whether position t attends only to positions up to t
     * @param seed seed of the initial weights
     */
    public Attention(int dim, int heads, boolean causal, long seed) {
        if (heads < 1 || dim % heads != 0) {
            throw new IllegalArgumentException("Attention: width " + dim + " is not divisible by " + heads
                    + " heads");
        }
        this.dim = dim;
        this.heads = heads;
        this.causal = causal;
        this.in = register("in_proj", new Linear(dim, 3 * dim, true, seed));
        this.out = register("out_proj", new Linear(dim, dim, true, seed + 2));
    }

    @Override
    public Tensor forward(Tensor x) {
        if (x.dim() != 3 || x.size(2) != dim) {
            throw new IllegalArgumentException("Attention: expected [B, T, " + dim + "], got " + x);
        }
        int b = x.size(0);
        int t = x.size(1);
        int hd = dim / heads;
        // every intermediate is closed when the output is made; autograd saved what backward needs of them
        try (TensorScope scope = TensorScope.open()) {
            Tensor qkv = in.forward(x);
            Tensor q = split(qkv, 0, b, t, hd);
            Tensor k = split(qkv, 1, b, t, hd);
            Tensor v = split(qkv, 2, b, t, hd);
            Tensor scores = q.matmul(k.transpose(-2, -1)).mul(1 / Math.sqrt(hd));
            if (causal) {
                scores = scores.add(mask(t, x));
            }
            Tensor context = scores.softmax(-1).matmul(v);
            return scope.keep(out.forward(context.transpose(1, 2).reshape(b, t, dim)));
        }
    }

    /** One of q, k, v as {@code [B, H, T, hd]}. */
    private Tensor split(Tensor qkv, int which, int b, int t, int hd) {
        return qkv.slice(2, (long) which * dim, (long) (which + 1) * dim).reshape(b, t, heads, hd).transpose(1, 2);
    }

    /** {@code [T, T]}: 0 on and below the diagonal, a large negative number above it. */
    private static Tensor mask(int t, Tensor like) {
        float[] m = new float[t * t];
        for (int i = 0; i < t; i++) {
            for (int j = i + 1; j < t; j++) {
                m[i * t + j] = -1e9f;
            }
        }
        return Tensor.of(m, t, t).to(like.device());
    }
}
