package dev.vantage.tensor.internal;

import dev.vantage.profiler.spi.OpNames;

/**
 * A declared op: its name, how many tensor inputs it takes and its row in the kernel table. The name is interned
 * once here so that dispatch hooks get an int id without a lookup.
 */
public final class OpDef {

    private final int index;
    private final String name;
    private final int arity;
    private final int nameId;

    OpDef(int index, String name, int arity) {
        this.index = index;
        this.name = name;
        this.arity = arity;
        this.nameId = OpNames.intern(name);
    }

    int index() {
        return index;
    }

    String name() {
        return name;
    }

    int arity() {
        return arity;
    }

    int nameId() {
        return nameId;
    }

    @Override
    public String toString() {
        return name;
    }
}
