package dev.vantage.tensor.optim;

import java.util.List;

import dev.vantage.profiler.memory.MemoryCategory;
import dev.vantage.profiler.memory.MemoryScope;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.TensorScope;

/**
 * Stochastic gradient descent with optional momentum and weight decay, as torch's {@code SGD}:
 * {@code d = g + wd * p}; {@code buf = momentum * buf + d} (the first buffer is a copy of d); {@code p -= lr * buf}.
 * A memory profile counts the momentum buffers as {@code OPTIMIZER_STATE}.
 */
public final class SGD extends Optimizer {

    private final double lr;
    private final double momentum;
    private final double weightDecay;
    private final Tensor[] buffers;

    /**
     * @param params parameters to update
     * @param lr learning rate, above 0
     * @param momentum momentum factor, 0 for none
     * @param weightDecay L2 penalty, 0 for none
     */
    public SGD(List<Tensor> params, double lr, double momentum, double weightDecay) {
        super(params);
        if (!(lr > 0) || momentum < 0 || weightDecay < 0) {
            throw new IllegalArgumentException("SGD: invalid lr=" + lr + " momentum=" + momentum + " weight decay="
                    + weightDecay);
        }
        this.lr = lr;
        this.momentum = momentum;
        this.weightDecay = weightDecay;
        this.buffers = new Tensor[params.size()];
    }

    @Override
    protected void update(int index, Tensor param, Tensor grad) {
        Tensor decayed = weightDecay == 0 ? grad : grad.add(param, weightDecay);
        try {
            Tensor d = decayed;
            if (momentum != 0) {
                Tensor buf = buffers[index];
                if (buf == null) {
                    try (MemoryScope scope = MemoryScope.enter(MemoryCategory.OPTIMIZER_STATE)) {
                        buf = TensorScope.escape(d.copy());
                    }
                    buffers[index] = buf;
                } else {
                    buf.mul_(momentum).add_(d, 1);
                }
                d = buf;
            }
            param.add_(d, -lr);
        } finally {
            if (decayed != grad) {
                decayed.close();
            }
        }
    }

    /** Frees the momentum buffers. */
    @Override
    public void close() {
        for (int i = 0; i < buffers.length; i++) {
            if (buffers[i] != null) {
                buffers[i].close();
                buffers[i] = null;
            }
        }
    }
}
