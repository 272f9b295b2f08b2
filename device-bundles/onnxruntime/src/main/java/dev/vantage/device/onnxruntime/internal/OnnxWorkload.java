package dev.vantage.device.onnxruntime.internal;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

import ai.onnxruntime.NodeInfo;
import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OnnxValue;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import ai.onnxruntime.TensorInfo;
import dev.vantage.device.onnxruntime.OrtProfiling;
import dev.vantage.device.onnxruntime.ProfiledSession;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.workload.Workload;
import dev.vantage.tensor.workload.WorkloadContext;

/**
 * {@code vantage run onnx --model FILE.onnx}: runs a real ONNX model on ONNX Runtime, one {@code OrtSession.run}
 * per step, on inputs made from the model's own input metadata ({@link InputPlan}). {@link #check} loads the model
 * before any work and keeps the session for {@link #run}, so that a bad path, a file ONNX Runtime cannot load or a
 * shape the model does not take is refused in one line, and so that the session is open when a profile prepares
 * its windows.
 */
@Component(service = Workload.class)
public class OnnxWorkload implements Workload {

    /** The sequence length of text inputs when {@code --seq-len} is not given. */
    static final int DEFAULT_SEQUENCE = 128;

    /** A checked model: its session and input plan, waiting for the run it was checked for. */
    private record Prepared(String key, ProfiledSession session, InputPlan plan) {
    }

    @Reference
    OrtProfiling ort;

    private Prepared waiting;

    @Override
    public String name() {
        return "onnx";
    }

    @Override
    public String description() {
        return "runs an ONNX model (--model FILE.onnx) on ONNX Runtime, one run per step, on inputs made from its"
                + " input metadata";
    }

    /** ONNX Runtime's CPU execution provider runs on the host. */
    @Override
    public boolean supports(Device device) {
        return device.type().equals("cpu");
    }

    /** The flags a model run takes: no optimizer, no data-parallel training. */
    @Override
    public java.util.Set<dev.vantage.tensor.workload.RunFlag> flags() {
        return java.util.EnumSet.of(dev.vantage.tensor.workload.RunFlag.BATCH_SIZE,
                dev.vantage.tensor.workload.RunFlag.THREADS, dev.vantage.tensor.workload.RunFlag.MODEL,
                dev.vantage.tensor.workload.RunFlag.SEQUENCE_LENGTH, dev.vantage.tensor.workload.RunFlag.INPUT);
    }

    @Override
    public void check(WorkloadContext context) {
        Prepared p = prepare(context);
        Prepared old;
        synchronized (this) {
            old = waiting;
            waiting = p;
        }
        close(old);
    }

    @Override
    public void run(WorkloadContext context) {
        if (!supports(context.device())) {
            throw new IllegalArgumentException("onnx runs on cpu (ONNX Runtime's CPU execution provider), not on "
                    + context.device());
        }
        Prepared p;
        synchronized (this) {
            p = waiting != null && waiting.key.equals(key(context)) ? waiting : null;
            waiting = p == null ? waiting : null;
        }
        if (p == null) {
            p = prepare(context);
        }
        try (ProfiledSession session = p.session;
                Inputs inputs = new Inputs(p.plan.create(ort.environment(), context.seed()))) {
            String outputs = "";
            double checksum = 0;
            for (int step = 0; step < context.steps(); step++) {
                try (OrtSession.Result result = session.run(inputs.tensors)) {
                    if (step == context.steps() - 1) {
                        outputs = describe(result);
                        checksum = checksum(result);
                    }
                }
                context.step();
            }
            List<String> in = new ArrayList<>();
            p.plan.inputs().forEach(i -> in.add(i.describe()));
            context.out().printf("onnx: %d steps of %s (%s) -> %s, checksum %.4f%n", context.steps(),
                    session.name(), String.join(", ", in), outputs, checksum);
        } catch (OrtException e) {
            throw new IllegalStateException("ONNX Runtime failed: " + e.getMessage(), e);
        }
    }

    /** Loads the model and plans its inputs; a problem is an {@link IllegalArgumentException} naming it. */
    private Prepared prepare(WorkloadContext context) {
        if (!supports(context.device())) {
            throw new IllegalArgumentException("onnx runs on cpu (ONNX Runtime's CPU execution provider), not on "
                    + context.device());
        }
        Path model = context.model();
        if (model == null) {
            throw new IllegalArgumentException("onnx needs --model FILE.onnx");
        }
        if (!Files.exists(model)) {
            throw new IllegalArgumentException("--model " + model + ": no such file");
        }
        if (Files.isDirectory(model)) {
            throw new IllegalArgumentException("--model " + model + ": is a directory, not an .onnx file");
        }
        if (!Files.isReadable(model)) {
            throw new IllegalArgumentException("--model " + model + ": cannot be read (permission denied)");
        }
        int threads = context.threads();
        ProfiledSession session;
        try {
            session = ort.open(model, () -> {
                OrtSession.SessionOptions o = new OrtSession.SessionOptions();
                if (threads > 0) {
                    o.setIntraOpNumThreads(threads);
                }
                // a failure is the run's one line; ONNX Runtime's own coloured log of it would be another
                o.setSessionLogLevel(ai.onnxruntime.OrtLoggingLevel.ORT_LOGGING_LEVEL_FATAL);
                return o;
            });
        } catch (OrtException | RuntimeException | UnsatisfiedLinkError e) {
            throw new IllegalArgumentException("--model " + model + ": ONNX Runtime cannot load it: "
                    + firstLine(e.getMessage()));
        }
        try {
            Map<String, NodeInfo> inputs = session.session().getInputInfo();
            int batch = context.batchSize() > 0 ? context.batchSize() : 1;
            int sequence = context.sequenceLength() > 0 ? context.sequenceLength() : DEFAULT_SEQUENCE;
            InputPlan plan = InputPlan.of(inputs, batch, sequence, context.inputShapes());
            tryFirst(context, model, threads, inputs, batch, sequence, plan);
            return new Prepared(key(context), session, plan);
        } catch (OrtException | RuntimeException e) {
            close(new Prepared("", session, null));
            if (e instanceof IllegalArgumentException iae) {
                throw iae;
            }
            throw new IllegalArgumentException("--model " + model + ": cannot read its inputs: "
                    + firstLine(e.getMessage()));
        }
    }

    /**
     * Runs the model once on one sample's inputs ({@link TrialRun}) before any work: inputs it cannot run on are
     * refused naming the flags that made them, and a batch whose largest tensor alone is more than the machine's
     * memory is refused naming the figures, before ONNX Runtime grows to it.
     */
    private void tryFirst(WorkloadContext context, Path model, int threads, Map<String, NodeInfo> inputs, int batch,
            int sequence, InputPlan plan) throws OrtException {
        boolean given = !context.inputShapes().isEmpty();
        // shapes given are run as given; planned ones with one sample, whatever the batch
        InputPlan one = given || batch == 1 ? plan : InputPlan.of(inputs, 1, sequence, context.inputShapes());
        long largest;
        try {
            largest = TrialRun.largestNodeOutput(ort.environment(), model, threads, one);
        } catch (OrtException e) {
            List<String> in = new ArrayList<>();
            one.inputs().forEach(i -> in.add(i.describe()));
            throw new IllegalArgumentException(flags(context) + ": ONNX Runtime cannot run " + model.getFileName()
                    + " on " + String.join(", ", in) + ": " + plain(firstLine(e.getMessage())));
        } catch (java.io.IOException e) {
            return; // no profile to size the run by: the run goes ahead as it would without the check
        }
        if (given || batch == 1 || largest == 0) {
            return;
        }
        long needed = largest > Long.MAX_VALUE / batch ? Long.MAX_VALUE : largest * batch;
        long memory = TrialRun.physicalMemory();
        if (needed > memory) {
            throw new IllegalArgumentException("--batch-size " + batch + ": one run of " + model.getFileName()
                    + " needs at least " + size(needed) + " of memory (its largest tensor, " + size(largest)
                    + " a sample, times " + batch + "), and this machine has " + size(memory)
                    + "; give a smaller --batch-size");
        }
    }

    /** The flags that made the inputs, as the user gave them. */
    private static String flags(WorkloadContext c) {
        List<String> f = new ArrayList<>();
        c.inputShapes().forEach((name, dims) -> f.add("--input " + name + "=" + java.util.Arrays.stream(dims)
                .mapToObj(Long::toString).collect(java.util.stream.Collectors.joining("x"))));
        if (c.sequenceLength() > 0) {
            f.add("--seq-len " + c.sequenceLength());
        }
        if (c.batchSize() > 0) {
            f.add("--batch-size " + c.batchSize());
        }
        return f.isEmpty() ? "--model " + c.model() : String.join(" ", f);
    }

    /** ONNX Runtime's message without terminal colours and its status prefix. */
    private static String plain(String message) {
        return message.replaceAll("\u001B\\[[0-9;]*m", "").replaceFirst("^Error code - ORT_[A-Z_]+ - message: ", "");
    }

    private static String size(long bytes) {
        return bytes >= 1L << 30 ? String.format(java.util.Locale.ROOT, "%.1f GB", bytes / (double) (1L << 30))
                : bytes >= 1L << 20 ? String.format(java.util.Locale.ROOT, "%.1f MB", bytes / (double) (1L << 20))
                : String.format(java.util.Locale.ROOT, "%.1f KB", bytes / 1024.0);
    }

    /** What a prepared model was prepared for. */
    private static String key(WorkloadContext c) {
        StringBuilder sb = new StringBuilder().append(c.model()).append('|').append(c.threads()).append('|')
                .append(c.batchSize()).append('|').append(c.sequenceLength());
        c.inputShapes().forEach((k, v) -> sb.append('|').append(k).append('=').append(java.util.Arrays.toString(v)));
        return sb.toString();
    }

    private static String firstLine(String message) {
        String m = Objects.requireNonNullElse(message, "no reason given").strip();
        int nl = m.indexOf('\n');
        return nl < 0 ? m : m.substring(0, nl);
    }

    private static String describe(OrtSession.Result result) {
        List<String> parts = new ArrayList<>();
        for (Map.Entry<String, OnnxValue> e : result) {
            if (e.getValue().getInfo() instanceof TensorInfo info) {
                parts.add(e.getKey() + " " + java.util.Arrays.toString(info.getShape()) + " "
                        + Twin.typeName(info.type));
            } else {
                parts.add(e.getKey());
            }
        }
        return String.join(", ", parts);
    }

    /** The sum of the first float output, so that a broken run shows. */
    private static double checksum(OrtSession.Result result) {
        for (Map.Entry<String, OnnxValue> e : result) {
            if (e.getValue() instanceof OnnxTensor t && t.getInfo().type == ai.onnxruntime.OnnxJavaType.FLOAT) {
                java.nio.FloatBuffer b = t.getFloatBuffer();
                double sum = 0;
                while (b.hasRemaining()) {
                    sum += b.get();
                }
                return sum;
            }
        }
        return 0;
    }

    private static void close(Prepared p) {
        if (p != null) {
            try {
                p.session.close();
            } catch (OrtException | RuntimeException e) {
                // a session that will not close holds natives until the process ends; nothing else to do
            }
        }
    }

    @Deactivate
    void deactivate() {
        Prepared p;
        synchronized (this) {
            p = waiting;
            waiting = null;
        }
        close(p);
    }

    /** The run's input tensors, closed with it. */
    private record Inputs(Map<String, OnnxTensor> tensors) implements AutoCloseable {
        @Override
        public void close() {
            tensors.values().forEach(OnnxTensor::close);
        }
    }
}
