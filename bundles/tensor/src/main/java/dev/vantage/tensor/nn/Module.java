package dev.vantage.tensor.nn;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import dev.vantage.profiler.memory.MemoryCategory;
import dev.vantage.profiler.memory.MemoryScope;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.GradMode;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.TensorScope;
import dev.vantage.tensor.internal.MemoryTags;

/**
 * A layer or a model, as torch's {@code nn.Module}: it owns named parameters (leaf tensors that require
 * gradients) and named submodules, in registration order. A subclass registers them in its constructor and
 * reads its parameters with {@link #param} in {@link #forward}, so {@link #to(Device)} can move them.
 * Forward passes may run on several threads at once when no one changes the parameters meanwhile. A memory
 * profile counts parameters, registered or moved, as {@code PARAMETER}.
 *
 * <p>A module owns its parameters: no {@link TensorScope} closes them, whatever scope they were made in; they live
 * until the module is closed ({@link #close}, which closes their gradients too) or, if it never is, until the
 * garbage collector frees them.
 */
public abstract class Module implements AutoCloseable {

    private final Map<String, Tensor> parameters = new LinkedHashMap<>();
    private final Map<String, Module> modules = new LinkedHashMap<>();
    private boolean training = true;

    /** Computes the module's output. */
    public abstract Tensor forward(Tensor x);

    /**
     * Registers a parameter; it is made to require a gradient.
     *
     * @throws IllegalArgumentException if the name is taken
     */
    protected final Tensor register(String name, Tensor parameter) {
        if (parameters.containsKey(name) || modules.containsKey(name)) {
            throw new IllegalArgumentException(getClass().getSimpleName() + " already has a member named " + name);
        }
        parameters.put(name, TensorScope.escape(Objects.requireNonNull(parameter, name).requiresGrad(true)));
        // created before it was known to be one: a memory profile counts it as a parameter from its allocation
        MemoryTags.categorize(parameter, MemoryCategory.PARAMETER);
        return parameter;
    }

    /**
     * Registers a submodule.
     *
     * @throws IllegalArgumentException if the name is taken
     */
    protected final <M extends Module> M register(String name, M module) {
        if (parameters.containsKey(name) || modules.containsKey(name)) {
            throw new IllegalArgumentException(getClass().getSimpleName() + " already has a member named " + name);
        }
        modules.put(name, Objects.requireNonNull(module, name));
        return module;
    }

    /** Returns one of this module's own parameters, or null if it has none of that name. */
    protected final Tensor param(String name) {
        return parameters.get(name);
    }

    /** Returns every parameter of this module and its submodules, by dotted name ({@code 0.weight}). */
    public final Map<String, Tensor> namedParameters() {
        Map<String, Tensor> all = new LinkedHashMap<>();
        collect("", all);
        return Collections.unmodifiableMap(all);
    }

    private void collect(String prefix, Map<String, Tensor> all) {
        parameters.forEach((name, p) -> all.put(prefix + name, p));
        modules.forEach((name, m) -> m.collect(prefix + name + ".", all));
    }

    /** Returns every parameter, in registration order. */
    public final List<Tensor> parameters() {
        return new ArrayList<>(namedParameters().values());
    }

    /** Returns the direct submodules by name. */
    public final Map<String, Module> namedChildren() {
        return Collections.unmodifiableMap(modules);
    }

    /** Sets training mode (dropout active) or evaluation mode, for this module and its submodules. */
    public Module train(boolean on) {
        training = on;
        modules.values().forEach(m -> m.train(on));
        return this;
    }

    /** Returns true in training mode. */
    public final boolean training() {
        return training;
    }

    /**
     * Moves every parameter to a device; returns this module. A moved parameter is a new tensor, and the one it
     * replaces is closed (its memory freed, as torch frees a parameter's old data), so move the model before creating
     * its optimizer, which holds the parameters it updates.
     */
    public Module to(Device device) {
        try (GradMode.Scope off = GradMode.disabled();
                MemoryScope scope = MemoryScope.enter(MemoryCategory.PARAMETER)) {
            parameters.replaceAll((name, p) -> {
                if (p.device().equals(device)) {
                    return p;
                }
                Tensor moved = TensorScope.escape(p.to(device).requiresGrad(true));
                p.close();
                return moved;
            });
        }
        modules.values().forEach(m -> m.to(device));
        return this;
    }

    /**
     * Closes every parameter of this module and its submodules, with their gradients: their memory goes back now.
     * The module cannot run afterwards. Closing twice does nothing.
     */
    @Override
    public void close() {
        parameters.values().forEach(Tensor::close);
        modules.values().forEach(Module::close);
    }

    /** Returns the number of parameter elements. */
    public final long parameterCount() {
        long n = 0;
        for (Tensor p : parameters()) {
            n += p.numel();
        }
        return n;
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + (modules.isEmpty() ? "" : modules.keySet().toString());
    }
}
