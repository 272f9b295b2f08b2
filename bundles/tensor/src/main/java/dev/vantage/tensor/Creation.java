package dev.vantage.tensor;

import dev.vantage.tensor.spi.KernelOps;

/** Ops that create or overwrite values: zeros, full, fill_, zero_; and reading values back to the host. */
final class Creation {

    /**
     * Zeros with {@code {{device's id}, sizes, {dtype's ordinal}}}: a backend's memory comes zero-filled, so no kernel
     * runs.
     */
    static final Op ZEROS = new Op(Op.forward("aten::zeros").shows(0, 0, 1)) {
        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            return empty(t, device, DType.values()[(int) ints[2][0]], Shapes.checked(ints[1]));
        }
    };

    /** A float tensor filled with {@code scalars[0]}, with {@code {{device's id}, sizes}}: zeros, then {@code fill_}. */
    static final Op FULL = new Op(Op.forward("aten::full").shows(0, 1, 1)) {
        @Override
        Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
            Tensor out = empty(t, device, DType.FLOAT32, Shapes.checked(ints[1]));
            return scalars[0] == 0 ? out : fill(out, scalars[0]);
        }
    };

    static final Op FILL_ = new Op(Op.kernel(KernelOps.FILL_).inPlace().shows(1, 1, 0)) { };
    static final Op ZERO_ = new Op(Op.kernel(KernelOps.ZERO_).inPlace().shows(1, 0, 0)) { };

    private static final Tensor[] NO_INPUTS = {};

    private Creation() {
    }

    static Tensor zeros(Device device, DType dtype, int[] sizes) {
        return ZEROS.call(NO_INPUTS, null, new long[][] {{Devices.id(device)}, Shapes.toLongs(sizes),
            {dtype.ordinal()}}, null);
    }

    static Tensor full(Device device, float value, int[] sizes) {
        return FULL.call(NO_INPUTS, new double[] {value}, new long[][] {{Devices.id(device)},
            Shapes.toLongs(sizes)}, null);
    }

    static Tensor fill(Tensor self, double value) {
        return FILL_.call(new Tensor[] {self}, new double[] {value}, null, null);
    }

    static Tensor zero(Tensor self) {
        return ZERO_.call(new Tensor[] {self}, null, null, null);
    }

    /**
     * A host tensor whose storage holds exactly the tensor's values, row-major: the tensor itself when it already is
     * one, else a copy, which the caller closes with {@link #closeCopy}.
     */
    static Tensor hostValues(Tensor t) {
        t.requireOpen("reading values");
        if (t.device().equals(Device.CPU) && t.offset == 0 && t.isContiguous() && t.storage.size() == t.numel()) {
            return t;
        }
        try (GradMode.Scope off = GradMode.disabled()) {
            Tensor host = Op.empty(Device.CPU, t.dtype(), t.sizes);
            Views.copyInto(host, t);
            return host;
        }
    }

    /** Closes what {@link #hostValues} returned for a tensor, unless it was the tensor itself. */
    static void closeCopy(Tensor host, Tensor t) {
        if (host != t) {
            host.close();
        }
    }
}
