package dev.vantage.tensor.optim;

import java.util.List;

import dev.vantage.profiler.api.RecordFunction;
import dev.vantage.tensor.GradMode;
import dev.vantage.tensor.Tensor;

/**
 * Updates parameters from their gradients. {@link #step()} runs with gradient recording off, inside a
 * {@code Optimizer.step#<Name>.step} profile annotation; {@link #zeroGrad()} clears gradients (sets them to none,
 * torch's default, which frees them) inside {@code Optimizer.zero_grad#<Name>.zero_grad}. Parameters without a
 * gradient are skipped. An optimizer owns its state (momentum buffers, running averages): no
 * {@code TensorScope} closes it; {@link #close} does.
 */
public abstract class Optimizer implements AutoCloseable {

    private final List<Tensor> params;
    private final String stepName;
    private final String zeroGradName;

    /**
     * @param params the parameters to update; each must require a gradient
     * @throws IllegalArgumentException if the list is empty or a tensor does not require a gradient
     */
    protected Optimizer(List<Tensor> params) {
        if (params.isEmpty()) {
            throw new IllegalArgumentException(getClass().getSimpleName() + " got an empty parameter list");
        }
        for (Tensor p : params) {
            if (!p.requiresGrad() || !p.isLeaf()) {
                throw new IllegalArgumentException(getClass().getSimpleName() + " can only optimize leaf tensors"
                        + " that require a gradient, not " + p);
            }
        }
        this.params = List.copyOf(params);
        String name = getClass().getSimpleName();
        this.stepName = "Optimizer.step#" + name + ".step";
        this.zeroGradName = "Optimizer.zero_grad#" + name + ".zero_grad";
    }

    /** Returns the parameters, in order. */
    public final List<Tensor> params() {
        return params;
    }

    /** Applies one update to every parameter that has a gradient. */
    public final void step() {
        try (RecordFunction scope = RecordFunction.scope(stepName); GradMode.Scope off = GradMode.disabled()) {
            for (int i = 0; i < params.size(); i++) {
                Tensor p = params.get(i);
                if (p.grad() != null) {
                    update(i, p, p.grad());
                }
            }
        }
    }

    /** Clears every parameter's gradient. */
    public final void zeroGrad() {
        try (RecordFunction scope = RecordFunction.scope(zeroGradName)) {
            for (Tensor p : params) {
                p.setGrad(null);
            }
        }
    }

    /** Updates parameter {@code index} in place from its gradient; called with recording off. */
    protected abstract void update(int index, Tensor param, Tensor grad);

    /**
     * Frees the optimizer's state; the parameters and their gradients stay. The optimizer starts afresh if stepped
     * again. This one has no state; optimizers that keep some override it.
     */
    @Override
    public void close() {
    }
}
