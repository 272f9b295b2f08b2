package dev.vantage.tensor.internal;

import dev.vantage.tensor.spi.KernelOps;

/** Looks ops up by name; each op's profile name and kernel slot are fixed when it is first asked for. */
public final class Ops {

    private Ops() {
    }

    /** An op that runs the kernel of the same name. */
    public static OpDef kernel(String name) {
        return new OpDef(name, kernelIndex(name));
    }

    /** An op named {@code name} that runs the kernel {@code kernel}, as {@code aten::add_} runs {@code aten::add}. */
    public static OpDef runs(String name, String kernel) {
        return new OpDef(name, kernelIndex(kernel));
    }

    /** An op with no kernel of its own: a view, a composite of other ops, or an autograd function. */
    public static OpDef composite(String name) {
        return new OpDef(name, -1);
    }

    static int kernelIndex(String name) {
        int index = KernelOps.ALL.indexOf(name);
        if (index < 0) {
            throw new IllegalArgumentException("no kernel named '" + name + "'");
        }
        return index;
    }
}
