package dev.vantage.tensor.internal;

import dev.vantage.profiler.dispatch.OpNames;

/**
 * An op as profiles name it ({@code aten::add_}), and the kernel it runs, if any: in-place forms share the kernel
 * of the out-of-place op; composite ops ({@code aten::linear}) and views have none. The name is interned once
 * here so that dispatch hooks get an int id without a lookup.
 */
public final class OpDef {

    private final String name;
    private final int nameId;
    private final int kernel;

    OpDef(String name, int kernel) {
        this.name = name;
        this.kernel = kernel;
        this.nameId = OpNames.intern(name);
    }

    /** Returns the op's name, such as {@code aten::add_}. */
    public String name() {
        return name;
    }

    int nameId() {
        return nameId;
    }

    /** Returns the index of the kernel in {@link dev.vantage.tensor.spi.KernelOps#ALL}, or -1 when it has none. */
    public int kernel() {
        return kernel;
    }

    @Override
    public String toString() {
        return name;
    }
}
