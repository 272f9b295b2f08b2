package dev.vantage.tensor.optim;

import java.util.List;

import dev.vantage.profiler.memory.MemoryCategory;
import dev.vantage.profiler.memory.MemoryScope;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.TensorScope;

/**
 * Adam, as torch's single-tensor implementation: running averages of the gradient and its square with bias
 * correction, {@code p -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)}. A memory profile counts the
 * two averages as {@code OPTIMIZER_STATE}.
 */
public final class Adam extends Optimizer {

    private final double lr;
    private final double beta1;
    private final double beta2;
    private final double eps;
    private final double weightDecay;
    private final Tensor[] expAvg;
    private final Tensor[] expAvgSq;
    private final int[] steps;

    /** Adam with torch's defaults: betas (0.9, 0.999), eps 1e-8, no weight decay. */
    public Adam(List<Tensor> params, double lr) {
        this(params, lr, 0.9, 0.999, 1e-8, 0);
    }

    /**
     * @param params parameters to update
     * @param lr learning rate, above 0
     * @param beta1 decay of the gradient average, in [0, 1)
     * @param beta2 decay of the squared-gradient average, in [0, 1)
     * @param eps added to the denominator, above 0
     * @param weightDecay L2 penalty, 0 for none
     */
    public Adam(List<Tensor> params, double lr, double beta1, double beta2, double eps, double weightDecay) {
        super(params);
        if (!(lr > 0) || beta1 < 0 || beta1 >= 1 || beta2 < 0 || beta2 >= 1 || !(eps > 0) || weightDecay < 0) {
            throw new IllegalArgumentException("Adam: invalid lr=" + lr + " betas=(" + beta1 + ", " + beta2
                    + ") eps=" + eps + " weight decay=" + weightDecay);
        }
        this.lr = lr;
        this.beta1 = beta1;
        this.beta2 = beta2;
        this.eps = eps;
        this.weightDecay = weightDecay;
        this.expAvg = new Tensor[params.size()];
        this.expAvgSq = new Tensor[params.size()];
        this.steps = new int[params.size()];
    }

    @Override
    protected void update(int index, Tensor param, Tensor grad) {
        if (expAvg[index] == null) {
            try (MemoryScope scope = MemoryScope.enter(MemoryCategory.OPTIMIZER_STATE)) {
                expAvg[index] = TensorScope.escape(Tensor.zeros(param.device(), param.dtype(), param.shape()));
                expAvgSq[index] = TensorScope.escape(Tensor.zeros(param.device(), param.dtype(), param.shape()));
            }
        }
        // the arithmetic's own tensors are freed before the next parameter's update, as torch's are
        try (TensorScope temporaries = TensorScope.open()) {
            Tensor g = weightDecay == 0 ? grad : grad.add(param, weightDecay);
            int t = ++steps[index];
            Tensor m = expAvg[index].mul_(beta1).add_(g, 1 - beta1);
            Tensor v = expAvgSq[index].mul_(beta2).addcmul_(g, g, 1 - beta2);
            double correction1 = 1 - Math.pow(beta1, t);
            double correction2 = Math.sqrt(1 - Math.pow(beta2, t));
            Tensor denom = v.sqrt().div(correction2).add_(eps);
            param.addcdiv_(m, denom, -lr / correction1);
        }
    }

    /** Frees the two running averages. */
    @Override
    public void close() {
        for (int i = 0; i < expAvg.length; i++) {
            if (expAvg[i] != null) {
                expAvg[i].close();
                expAvgSq[i].close();
                expAvg[i] = null;
                expAvgSq[i] = null;
                steps[i] = 0;
            }
        }
    }
}
