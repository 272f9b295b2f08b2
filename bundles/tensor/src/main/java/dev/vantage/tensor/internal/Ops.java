package dev.vantage.tensor.internal;

import java.util.List;

/** The ops the runtime declares. Each has a dense index into the dispatcher's kernel table. */
public final class Ops {

    public static final OpDef ADD = new OpDef(0, "aten::add", 2);
    public static final OpDef MUL = new OpDef(1, "aten::mul", 2);
    public static final OpDef MATMUL = new OpDef(2, "aten::matmul", 2);
    public static final OpDef SUM = new OpDef(3, "aten::sum", 1);

    static final List<OpDef> ALL = List.of(ADD, MUL, MATMUL, SUM);

    private Ops() {
    }

    static OpDef byName(String name) {
        for (OpDef op : ALL) {
            if (op.name().equals(name)) {
                return op;
            }
        }
        return null;
    }
}
