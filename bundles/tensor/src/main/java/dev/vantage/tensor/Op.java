package dev.vantage.tensor;

import java.util.Arrays;

import dev.vantage.profiler.dispatch.Dispatch;
import dev.vantage.profiler.dispatch.DispatchHook;
import dev.vantage.profiler.dispatch.DispatchThread;
import dev.vantage.profiler.dispatch.OpNames;
import dev.vantage.profiler.memory.MemoryCategory;
import dev.vantage.profiler.memory.MemoryEvents;
import dev.vantage.profiler.memory.MemoryThread;
import dev.vantage.tensor.internal.Dispatcher;
import dev.vantage.tensor.spi.Backend;
import dev.vantage.tensor.spi.Kernel;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.Storage;

/**
 * An op of the runtime, such as {@code aten::add}, and the one template every op runs through ({@link #call}; an op
 * with several results is entered through {@link #callAll}).
 *
 * <p>The template does what every op does, in this order: checks that the inputs are open and on one device, and
 * whether one needs a gradient; looks the thread's state up once, if anything needs it ({@link OpThread}); takes an
 * autograd sequence number; opens the frame hooks see ({@link OpThread.Frame}); runs the op; records its backward
 * node; closes the frame. A kernel op in between asks its {@link #shape shape rule} for the output, finds its
 * device's backend once, allocates the output there (a memory profile learns what it holds) and runs the backend's
 * kernel, or the CPU's with the copies visible ({@link HostFallback}). It is one method, so that following an op's
 * arguments through it means reading one method: the steps that need their own are the rare ones (errors, the
 * fallback, outputs beyond the first). An op with one output allocates no array of outputs: its kernel's call holds
 * the output itself.
 *
 * <p>What differs from op to op is in the op's own class ({@link Pointwise}, {@link Views}, {@link Reductions},
 * {@link Linalg}, {@link Functional}, {@link Creation}): its name, kernel and inputs shown ({@link Spec}), its
 * shape rule with the checks the kernel needs, its {@link #forward} when it is not a kernel, what it
 * {@link #saves} and its {@link #backward}. Ops are constants: each call passes its inputs, then the scalars and
 * integer lists its kernel takes, in the layout {@link KernelOps} documents.
 */
abstract class Op {

    /** How an op makes its result. */
    enum Kind {
        /** Allocates its outputs by its shape rule and runs its kernel ({@code aten::add}). */
        KERNEL,
        /** Computes its result itself: a view, or a copy made by other ops ({@code aten::view}, {@code aten::clone}). */
        FORWARD,
        /** Returns what other ops computed, and shows their events inside its own ({@code aten::matmul}). */
        COMPOSITE
    }

    final String name;
    final int nameId;
    final Kind kind;
    /** The kernel's index in {@link KernelOps#ALL} and its name; -1 and null for an op with none. */
    final int kernel;
    final String kernelName;
    /** An in-place op writes into its input 0, which is its output 0. */
    final boolean inPlace;
    /** Inputs may be on different devices: {@link #device(Tensor[], long[][])} says where the op runs. */
    final boolean crossDevice;
    /** Output 0's dtype: {@link #dtype}, or input 0's when {@code sameDtype}. */
    final DType dtype;
    final boolean sameDtype;
    final int outputs;
    final int results;
    final int tensorsShown;
    final int scalarsShown;
    final int intsShown;
    final boolean listShown;
    /** Which input each shown tensor is, when it is not the one at its own position; null for those. */
    final int[] shownInputs;
    /** The backward node's name ({@code AddBackward0}) and its ids; null and -1 for an op with no gradient. */
    final String backwardName;
    final int backwardNameId;
    final int evaluateNameId;

    Op(Spec s) {
        this.name = s.name;
        this.nameId = OpNames.intern(s.name);
        this.kind = s.kind;
        this.kernel = s.kernel == null ? -1 : KernelOps.ALL.indexOf(s.kernel);
        if (s.kernel != null && kernel < 0) {
            throw new IllegalArgumentException("no kernel named '" + s.kernel + "'");
        }
        this.kernelName = s.kernel;
        this.inPlace = s.inPlace;
        this.crossDevice = s.crossDevice;
        this.outputs = s.outputs;
        this.results = s.results;
        this.tensorsShown = s.tensors;
        this.scalarsShown = s.scalars;
        this.intsShown = s.ints;
        this.listShown = s.list;
        this.shownInputs = s.shownInputs;
        this.dtype = s.dtype;
        this.sameDtype = s.sameDtype;
        this.backwardName = s.backward;
        this.backwardNameId = s.backward == null ? -1 : OpNames.intern(s.backward);
        this.evaluateNameId = s.backward == null ? -1 : OpNames.intern(Autograd.evaluateName(s.backward));
    }

    // ---------------------------------------------------------------- what differs from op to op

    /**
     * A kernel op's shape rule: checks what its kernel needs of the inputs (dtypes, ranks, shapes that fit) and
     * returns the shape of output 0; by default input 0's. May normalise its integer lists in place for the kernel.
     *
     * @throws IllegalArgumentException naming the op, the shapes, dtypes and devices, when the inputs do not fit
     */
    int[] shape(Tensor[] in, double[] scalars, long[][] ints) {
        return in[0].sizes;
    }

    /** Returns the shape of output {@code k} (1 or more) of an op with several, or null when it has none this call. */
    int[] shape(int k, Tensor[] in, double[] scalars, long[][] ints) {
        throw new UnsupportedOperationException(name + " has one output");
    }

    /** Returns the dtype of output {@code k} (1 or more). */
    DType dtype(int k, Tensor[] in) {
        return DType.FLOAT32;
    }

    /**
     * Where a cross-device op runs, or an op with no tensor input: by default the device its integer list
     * {@code ints[0]} names ({@link Devices#id}).
     */
    Device device(Tensor[] in, long[][] ints) {
        return Devices.of(ints[0][0]);
    }

    /**
     * A forward or composite op's result, computed from its inputs; a view or a new tensor (which joins the thread's
     * scope), or one of the inputs. {@code t} is the thread's state when the op looked it up, else null.
     */
    Tensor forward(OpThread t, Device device, Tensor[] in, double[] scalars, long[][] ints) {
        throw new UnsupportedOperationException(name + " is a kernel op");
    }

    /**
     * What the backward needs saved, given which inputs need a gradient ({@code requiresGrad} of {@code in}): bit
     * {@code i} for input {@code i}, bit {@code 16 + k} for output {@code k}. Nothing by default.
     */
    int saves(Tensor[] in) {
        return 0;
    }

    /** The gradient of each input from the gradient of output 0; null where an input needs none. */
    Tensor[] backward(Node n, Tensor grad) {
        throw new UnsupportedOperationException(name + " has no gradient");
    }

    static final int OUT0 = 1 << 16;

    // ---------------------------------------------------------------- the template

    /**
     * Runs the op: the template every op goes through. Returns its result, output 0; outputs that are the op's own
     * (indices, statistics) are closed by then. An op with one output allocates no array of outputs.
     *
     * @param in the tensor inputs, the array a kernel receives; null for an absent optional input
     * @param scalars the kernel's scalar arguments, or null
     * @param ints the kernel's integer lists (dims, strides, a device's {@link Devices#id}), or null
     * @param out receives every output, for an op with several results ({@link #callAll}); null otherwise
     */
    final Tensor call(Tensor[] in, double[] scalars, long[][] ints, Tensor[] out) {
        // the inputs, in one pass: open, on one device, and whether one needs a gradient
        Device device = null;
        boolean anyGrad = false;
        for (Tensor x : in) {
            if (x == null) {
                continue;
            }
            if (x.closed) {
                throw x.closedError(name);
            }
            Device d = x.storage.device();
            if (device == null) {
                device = d;
            } else if (d != device && !crossDevice && !d.equals(device)) {
                throw differentDevices(in);
            }
            anyGrad |= x.requiresGrad;
        }
        if (crossDevice || device == null) {
            device = device(in, ints);
        }
        // the thread's state, looked up once and only when something needs it
        DispatchHook[] hooks = Dispatch.hooks();
        OpThread t = anyGrad || hooks != null || TensorScope.anyOpen() || MemoryEvents.enabled()
                ? OpThread.current() : null;
        if (inPlace) {
            checkInPlace(t, in[0]);
        }
        boolean grad = anyGrad && backwardNameId >= 0 && t.gradOff == 0;
        long seq = grad ? t.sequence++ : -1;
        OpThread.Frame f = hooks == null ? null : t.push(name, nameId, hooks);
        try {
            if (f != null) {
                f.begin(this, seq, in);
            }
            Tensor result;
            if (kind == Kind.KERNEL) {
                // the shape rule, the backend found once, the outputs allocated there, the kernel
                int[] shape = shape(in, scalars, ints);
                Dispatcher.Table table = Dispatcher.table();
                int slot = table.slot(device);
                Backend backend = table.backends()[slot];
                Tensor first = in.length > 0 ? in[0] : null;
                result = inPlace ? first : output(t, backend, device, sameDtype ? first.dtype() : dtype, shape, first);
                if (outputs > 1) {
                    out = out == null ? new Tensor[outputs] : out;
                    out[0] = result;
                    moreOutputs(t, backend, device, in, scalars, ints, out);
                }
                Kernel kernel = table.kernel(this.kernel, slot);
                if (kernel != null) {
                    kernel.run(out == null ? new KernelCall(kernelName, in, result, scalars, ints)
                            : new KernelCall(kernelName, in, out, scalars, ints));
                } else {
                    HostFallback.run(this, device, in, out == null ? new Tensor[] {result} : out, scalars, ints);
                }
                if (inPlace) {
                    first.storage.bumpVersion();
                }
            } else {
                result = forward(t, device, in, scalars, ints);
                if (out != null) {
                    out[0] = result;
                }
                if (kind == Kind.FORWARD && t != null && result.scope == null && isNew(result, in)) {
                    t.adopt(result);   // a view; a tensor the op allocated joined the scope already
                }
            }
            if (grad && isNew(result, in)) {
                Autograd.record(this, t, seq, in, out == null ? new Tensor[] {result} : out, scalars, ints, device);
            }
            if (outputs > results) {
                closeOwn(out);
            }
            return result;
        } finally {
            if (f != null) {
                f.close();
            }
        }
    }

    /** Runs an op with several results (two gradient kernels) and returns them all, output 0 first. */
    final Tensor[] callAll(Tensor[] in, double[] scalars, long[][] ints) {
        Tensor[] out = new Tensor[outputs];
        call(in, scalars, ints, out);
        return out;
    }

    private IllegalArgumentException differentDevices(Tensor[] in) {
        return new IllegalArgumentException(name + ": expected all tensors on one device, got " + describe(in));
    }

    /** Outputs 1 and on, by their own rules; null where an output is absent this call. */
    private void moreOutputs(OpThread t, Backend backend, Device device, Tensor[] in, double[] scalars,
            long[][] ints, Tensor[] out) {
        for (int k = 1; k < out.length; k++) {
            int[] s = shape(k, in, scalars, ints);
            out[k] = s == null ? null : output(t, backend, device, dtype(k, in), s, null);
        }
    }

    /** Closes the outputs that are the op's own (indices, statistics): the node holds what it saved of them. */
    private void closeOwn(Tensor[] out) {
        for (int k = results; k < out.length; k++) {
            if (out[k] != null) {
                out[k].close();
            }
        }
    }

    /**
     * A new output on the op's backend. It shares the sizes array it was given (an input's, when the shape rule
     * returned that), and the strides of {@code like} when {@code like} is a contiguous input of those sizes.
     */
    private Tensor output(OpThread t, Backend backend, Device device, DType dtype, int[] sizes, Tensor like) {
        boolean sameSizes = like != null && like.sizes == sizes;
        int[] strides = sameSizes && like.isContiguous() ? like.strides : Shapes.contiguousStrides(sizes);
        int n = sameSizes ? like.numel : Shapes.numel(sizes);
        return wrap(t, allocate(t, backend, device, dtype, n, nameId), sizes, strides, n);
    }

    /**
     * A new tensor for a forward op's result, on a device the op names (which must exist): the op's one backend
     * lookup. {@code t} is what the op looked up, or null.
     */
    final Tensor empty(OpThread t, Device device, DType dtype, int[] sizes) {
        return output(t, Dispatcher.backend(device), device, dtype, sizes, null);
    }

    /**
     * A new contiguous tensor outside any op (reading values back, filling a random tensor), counted as an op's
     * allocation is; it joins the open scope.
     */
    static Tensor empty(Device device, DType dtype, int[] sizes) {
        OpThread t = TensorScope.anyOpen() || MemoryEvents.enabled() ? OpThread.current() : null;
        int n = Shapes.numel(sizes);
        Storage s = allocate(t, Dispatcher.backend(device), device, dtype, n, t == null ? -1 : t.innermostNameId());
        return wrap(t, s, sizes, Shapes.contiguousStrides(sizes), n);
    }

    private static Tensor wrap(OpThread t, Storage storage, int[] sizes, int[] strides, int numel) {
        Tensor out = new Tensor(storage, sizes, strides, 0, numel);
        if (t != null) {
            t.adopt(out);
        }
        return out;
    }

    /**
     * Memory from a backend. While a profile records memory, the allocation takes the thread's memory category: a
     * scope's ({@code MemoryScope}), else an activation while gradients are recorded and a temporary otherwise; and
     * the storage remembers the op that allocated it ({@code origin}, a name id), for a late free's report.
     */
    private static Storage allocate(OpThread t, Backend backend, Device device, DType dtype, int n, int origin) {
        if (t == null || !MemoryEvents.enabled()) {
            return backend.allocate(device, dtype, n);
        }
        DispatchThread thread = t.thread;
        MemoryCategory outer = MemoryThread.category(thread);
        if (outer == MemoryCategory.UNKNOWN) {
            MemoryThread.setCategory(thread, t.gradOff == 0 ? MemoryCategory.ACTIVATION : MemoryCategory.TEMPORARY);
        }
        try {
            Storage s = backend.allocate(device, dtype, n);
            s.allocatedBy(origin);
            return s;
        } finally {
            MemoryThread.setCategory(thread, outer);
        }
    }

    /** Whether a result is a tensor of the op's making, not one of its inputs passed through. */
    private static boolean isNew(Tensor out, Tensor[] in) {
        for (Tensor x : in) {
            if (x == out) {
                return false;
            }
        }
        return true;
    }

    /**
     * An in-place op may not write into a tensor autograd tracks while gradients are recorded (its recorded gradients
     * would be wrong), nor into an expanded view, where several elements share one memory location.
     */
    private void checkInPlace(OpThread t, Tensor self) {
        if (self.requiresGrad && t.gradOff == 0) {
            throw new IllegalStateException(name + ": " + describe(self) + " requires a gradient and cannot be"
                    + " modified in place while gradients are recorded; do it under GradMode.disabled(), or use"
                    + " the out-of-place op");
        }
        for (int d = 0; d < self.dim(); d++) {
            if (self.strides[d] == 0 && self.sizes[d] > 1) {
                throw new IllegalArgumentException(name + ": more than one element of the written-to tensor "
                        + describe(self) + " refers to a single memory location (an expanded view); clone it first");
            }
        }
    }

    @Override
    public String toString() {
        return name;
    }

    // ---------------------------------------------------------------- shared by the ops' rules

    /** Checks that tensors hold floats, naming the op otherwise; null ones are absent optional inputs. */
    final void requireFloat(Tensor... tensors) {
        for (Tensor t : tensors) {
            if (t != null && t.storage.dtype() != DType.FLOAT32) {
                throw new IllegalArgumentException(name + ": expected a float tensor, got " + describe(t));
            }
        }
    }

    /** Checks a tensor's rank, naming the op otherwise. */
    final void requireRank(Tensor t, int rank, String what) {
        if (t.dim() != rank) {
            throw new IllegalArgumentException(name + ": expected " + what + " of " + rank + " dimensions, got "
                    + describe(t));
        }
    }

    /** Describes tensors as messages show them: {@code [2, 3] float on cpu:0}. */
    static String describe(Tensor... tensors) {
        StringBuilder s = new StringBuilder();
        for (Tensor t : tensors) {
            if (t == null) {
                continue;
            }
            s.append(s.length() == 0 ? "" : " and ").append(Arrays.toString(t.sizes)).append(' ')
                    .append(t.dtype().profileName()).append(" on ").append(t.device());
        }
        return s.toString();
    }

    /**
     * Closes a tensor an op made for itself, unless it is null or one of {@code keep} (an op's input or result it
     * merely passed through, such as {@code to()} of a tensor already on the host).
     */
    static void closeTemporary(Tensor t, Tensor... keep) {
        if (t == null) {
            return;
        }
        for (Tensor k : keep) {
            if (k == t) {
                return;
            }
        }
        t.close();
    }

    /** The gradients of a backward, as an array. */
    static Tensor[] grads(Tensor... g) {
        return g;
    }

    // ---------------------------------------------------------------- declaring an op

    /** An op that runs the kernel of its own name. */
    static Spec kernel(String kernel) {
        return new Spec(kernel, Kind.KERNEL, kernel);
    }

    /** An op named {@code name} that runs the kernel {@code kernel}, as {@code aten::add_} runs {@code aten::add}. */
    static Spec runs(String name, String kernel) {
        return new Spec(name, Kind.KERNEL, kernel);
    }

    /** An op that computes its result itself: a view, or a copy made by other ops. */
    static Spec forward(String name) {
        return new Spec(name, Kind.FORWARD, null);
    }

    /** An op made of other ops. */
    static Spec composite(String name) {
        return new Spec(name, Kind.COMPOSITE, null);
    }

    /** What an op is, as its declaration reads: name, kernel, inputs shown, outputs, backward node. */
    static final class Spec {
        final String name;
        final Kind kind;
        final String kernel;
        int tensors = 1;
        int scalars;
        int ints;
        boolean list;
        boolean inPlace;
        boolean crossDevice;
        int outputs = 1;
        int results = 1;
        DType dtype = DType.FLOAT32;
        boolean sameDtype;
        int[] shownInputs;
        String backward;

        private Spec(String name, Kind kind, String kernel) {
            this.name = name;
            this.kind = kind;
            this.kernel = kernel;
        }

        /** The inputs hooks see: the first {@code tensors} inputs, then {@code scalars} and {@code ints} counted. */
        Spec shows(int tensors, int scalars, int ints) {
            this.tensors = tensors;
            this.scalars = scalars;
            this.ints = ints;
            return this;
        }

        /** Hooks see these inputs as its tensors, such as input 4 third. */
        Spec showsInputs(int... inputs) {
            this.tensors = inputs.length;
            this.shownInputs = inputs;
            return this;
        }

        /** Output 0 holds this dtype (float unless said). */
        Spec dtype(DType type) {
            this.dtype = type;
            return this;
        }

        /** Output 0 holds input 0's dtype. */
        Spec sameDtype() {
            this.sameDtype = true;
            return this;
        }

        /** Hooks see the inputs as one tensor list, then {@code ints} integer lists. */
        Spec showsList(int ints) {
            this.list = true;
            this.ints = ints;
            return this;
        }

        /** Writes into input 0, which is also output 0. */
        Spec inPlace() {
            this.inPlace = true;
            return this;
        }

        /** Takes inputs on different devices; the op says where its kernel runs. */
        Spec crossDevice() {
            this.crossDevice = true;
            return this;
        }

        /** Has {@code n} outputs, of which output 0 is the result; the others are the op's own. */
        Spec outputs(int n) {
            this.outputs = n;
            return this;
        }

        /** Has {@code n} outputs, all of them results. */
        Spec results(int n) {
            this.outputs = n;
            this.results = n;
            return this;
        }

        /** Records a backward node of this name when an input needs a gradient. */
        Spec backward(String nodeName) {
            this.backward = nodeName;
            return this;
        }
    }
}
