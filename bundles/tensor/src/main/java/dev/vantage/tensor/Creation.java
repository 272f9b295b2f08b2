package dev.vantage.tensor;

import dev.vantage.tensor.internal.CallFrame;
import dev.vantage.tensor.internal.OpDef;
import dev.vantage.tensor.internal.Ops;
import dev.vantage.tensor.spi.KernelOps;

/** Ops that create or overwrite values: zeros, full, fill_, zero_; and reading values back to the host. */
final class Creation {

    static final OpDef ZEROS = Ops.composite("aten::zeros");
    static final OpDef FULL = Ops.composite("aten::full");
    static final OpDef FILL_ = Ops.kernel(KernelOps.FILL_);
    static final OpDef ZERO_ = Ops.kernel(KernelOps.ZERO_);

    private Creation() {
    }

    /** Zeros; a backend's allocations are zero-filled, so no kernel runs. */
    static Tensor zeros(Device device, DType dtype, int[] sizes) {
        CallFrame f = CallFrame.begin(ZEROS, -1, 0, null, null, null, 0, 1);
        try {
            return Exec.empty(device, dtype, sizes);
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor full(Device device, float value, int[] sizes) {
        CallFrame f = CallFrame.begin(FULL, -1, 0, null, null, null, 1, 1);
        try {
            Tensor out = Exec.empty(device, DType.FLOAT32, sizes);
            return value == 0 ? out : fill(out, value);
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor fill(Tensor self, double value) {
        Autograd.checkInPlace(FILL_.name(), self);
        Exec.requireWritable(FILL_.name(), self);
        CallFrame f = CallFrame.begin(FILL_, -1, 1, self, null, null, 1, 0);
        try {
            Exec.run(FILL_, self.device(), new Tensor[] {self}, new Tensor[] {self}, new double[] {value}, null);
            self.storage.bumpVersion();
            return self;
        } finally {
            CallFrame.close(f);
        }
    }

    static Tensor zero(Tensor self) {
        Autograd.checkInPlace(ZERO_.name(), self);
        Exec.requireWritable(ZERO_.name(), self);
        CallFrame f = CallFrame.begin(ZERO_, -1, 1, self, null, null, 0, 0);
        try {
            Exec.run(ZERO_, self.device(), new Tensor[] {self}, new Tensor[] {self}, null, null);
            self.storage.bumpVersion();
            return self;
        } finally {
            CallFrame.close(f);
        }
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
            Tensor host = Exec.empty(Device.CPU, t.dtype(), t.sizes);
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
