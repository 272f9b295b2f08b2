package dev.vantage.tensor.distributed;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import dev.vantage.profiler.memory.MemoryCategory;
import dev.vantage.profiler.memory.MemoryScope;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.GradMode;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.TensorScope;
import dev.vantage.tensor.internal.AutogradHooks;
import dev.vantage.tensor.nn.Module;

/**
 * Data-parallel training, as torch's {@code DistributedDataParallel}: every rank runs the same model on its own
 * shard of the batch, and after backward every rank holds the gradients averaged over all ranks, so the optimizers
 * take the same step everywhere.
 *
 * <p>Construction broadcasts rank 0's parameters, so all ranks start equal. The parameters are split into buckets
 * of about {@code bucketCapMb} megabytes, in reverse registration order (gradients arrive roughly from the last
 * layer to the first). During backward, a hook on each parameter counts its gradient in; when a bucket is
 * complete it is copied into a flat host buffer and all-reduced ({@link ReduceOp#AVG}) asynchronously, so
 * communication overlaps the rest of backward. Buckets are launched in bucket order, the same on every rank. When
 * the backward pass ends, the engine calls this module back: any bucket not yet launched (its parameters got no
 * gradient, taken as zero, as torch's {@code find_unused_parameters}) is launched, every bucket is waited on and
 * the averaged gradients become the parameters' {@code grad()}. So after {@code loss.backward()} returns, the
 * gradients are synchronised and {@code optimizer.step()} may run.
 *
 * <p>Wrap the module after moving it to its device. Its parameters are this module's, named {@code module.<name>},
 * as torch's. Not thread-safe: one backward pass at a time.
 */
public final class DistributedDataParallel extends Module {

    /** torch's default bucket size. */
    public static final double DEFAULT_BUCKET_CAP_MB = 25;

    private final Module module;
    private final ProcessGroup group;
    private final List<Bucket> buckets = new ArrayList<>();
    private long backwardPass = -1;
    private int nextLaunch;

    /** Wraps a module with buckets of {@value #DEFAULT_BUCKET_CAP_MB} MB. */
    public DistributedDataParallel(Module module, ProcessGroup group) {
        this(module, group, DEFAULT_BUCKET_CAP_MB);
    }

    /**
     * Wraps a module: broadcasts rank 0's parameters to every rank and hooks the parameters' gradients.
     *
     * @param bucketCapMb the size in megabytes a bucket grows to; a parameter larger than it has its own bucket
     * @throws IllegalArgumentException if the module has no parameters, a parameter is not float32, or the cap is
     *     not positive
     * @throws DistributedException if the broadcast fails
     */
    public DistributedDataParallel(Module module, ProcessGroup group, double bucketCapMb) {
        this.module = Objects.requireNonNull(module, "module");
        this.group = Objects.requireNonNull(group, "group");
        if (!(bucketCapMb > 0)) {
            throw new IllegalArgumentException("bucket cap must be positive, not " + bucketCapMb + " MB");
        }
        register("module", module);
        List<Tensor> params = module.parameters();
        if (params.isEmpty()) {
            throw new IllegalArgumentException("DistributedDataParallel: " + module + " has no parameters");
        }
        try (GradMode.Scope off = GradMode.disabled()) {
            for (Tensor p : params) {
                group.broadcast(p, 0);
            }
        }
        long cap = (long) (bucketCapMb * 1024 * 1024);
        Bucket current = null;
        for (int i = params.size() - 1; i >= 0; i--) {
            Tensor p = params.get(i);
            if (current == null || current.bytes > 0 && current.bytes + 4L * p.numel() > cap) {
                current = new Bucket(buckets.size());
                buckets.add(current);
            }
            current.add(p);
            Bucket bucket = current;
            AutogradHooks.addPostAccumulateHook(p, leaf -> ready(bucket));
        }
    }

    /** Returns the wrapped module. */
    public Module module() {
        return module;
    }

    /** Returns the process group gradients are averaged over. */
    public ProcessGroup processGroup() {
        return group;
    }

    /** Returns how many gradient buckets there are. */
    public int bucketCount() {
        return buckets.size();
    }

    /** Runs the wrapped module. */
    @Override
    public Tensor forward(Tensor x) {
        return module.forward(x);
    }

    /**
     * Refuses to move: the hooks are on the current parameters.
     *
     * @throws IllegalStateException always when the device differs from the parameters'
     */
    @Override
    public Module to(Device device) {
        for (Tensor p : module.parameters()) {
            if (!p.device().equals(device)) {
                throw new IllegalStateException("move the module to " + device
                        + " before wrapping it in DistributedDataParallel");
            }
        }
        return this;
    }

    /** A parameter's gradient was accumulated: count it in; launch every complete bucket, in bucket order. */
    private void ready(Bucket bucket) {
        long pass = AutogradHooks.currentBackward();
        if (pass != backwardPass) {
            if (backwardPass >= 0) {
                // the previous pass failed before its end: finish its collectives so every rank stays in step
                drain();
            }
            backwardPass = pass;
            AutogradHooks.queueCallback(this::finish);
        }
        bucket.pending--;
        while (nextLaunch < buckets.size() && buckets.get(nextLaunch).pending == 0) {
            buckets.get(nextLaunch++).launch(group);
        }
    }

    /** The backward pass ended: launch what is left, wait for everything, install the averaged gradients. */
    private void finish() {
        try {
            while (nextLaunch < buckets.size()) {
                buckets.get(nextLaunch++).launch(group);
            }
            for (Bucket b : buckets) {
                b.writeBack();
            }
        } finally {
            reset();
        }
    }

    private void drain() {
        try {
            while (nextLaunch < buckets.size()) {
                buckets.get(nextLaunch++).launch(group);
            }
            for (Bucket b : buckets) {
                b.await();
            }
        } finally {
            reset();
        }
    }

    private void reset() {
        backwardPass = -1;
        nextLaunch = 0;
        for (Bucket b : buckets) {
            b.reset();
        }
    }

    /** Parameters whose gradients are averaged together, flattened into one host buffer. */
    private static final class Bucket {
        final int index;
        final List<Tensor> params = new ArrayList<>();
        long bytes;
        int pending;
        float[] flat;
        /** The bucket on the parameters' device, which the collective reduces; {@code flat} itself on the CPU. */
        Tensor reduced;
        Work work;

        Bucket(int index) {
            this.index = index;
        }

        void add(Tensor p) {
            params.add(p);
            bytes += 4L * p.numel();
            pending++;
        }

        void launch(ProcessGroup group) {
            flat = new float[(int) (bytes / 4)];
            int at = 0;
            for (Tensor p : params) {
                Tensor g = p.grad();
                if (g != null) {
                    System.arraycopy(g.toFloatArray(), 0, flat, at, p.numel());
                }
                at += p.numel();
            }
            Tensor host = Tensor.of(flat, flat.length);
            // reduced where the parameters live, so that a device's backend moves it (an NPU's as HCCL kernels);
            // the bucket owns it until the pass ends, whatever scope the backward pass runs in
            dev.vantage.tensor.Device device = params.get(0).device();
            try (GradMode.Scope off = GradMode.disabled()) {
                reduced = TensorScope.escape(device.equals(dev.vantage.tensor.Device.CPU) ? host : host.to(device));
            }
            if (reduced != host) {
                host.close();
            }
            work = group.allReduceAsync(reduced, ReduceOp.AVG);
        }

        void await() {
            if (work != null) {
                work.await();
            }
        }

        void writeBack() {
            await();
            if (reduced != null && !reduced.device().equals(dev.vantage.tensor.Device.CPU)) {
                flat = reduced.toFloatArray();
            }
            int at = 0;
            for (Tensor p : params) {
                float[] values = new float[p.numel()];
                System.arraycopy(flat, at, values, 0, values.length);
                at += values.length;
                try (GradMode.Scope off = GradMode.disabled();
                        MemoryScope scope = MemoryScope.enter(MemoryCategory.GRADIENT)) {
                    Tensor host = Tensor.of(values, p.shape());
                    Tensor averaged = host.to(p.device());
                    if (averaged != host) {
                        host.close();
                    }
                    p.setGrad(averaged);   // the parameter owns it from now on
                }
            }
        }

        void reset() {
            pending = params.size();
            flat = null;
            if (reduced != null) {
                reduced.close();
            }
            reduced = null;
            work = null;
        }

        @Override
        public String toString() {
            return "bucket " + index + " (" + params.size() + " parameters, " + bytes + " bytes)";
        }
    }
}
