package dev.vantage.testapps.ortdirect;

import java.nio.LongBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

import org.osgi.framework.Constants;
import org.osgi.framework.launch.Framework;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.Value;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;

/**
 * Runs a BERT-style ONNX model with ONNX Runtime's Java API directly, and uses its own Jackson, protobuf and an OSGi
 * framework of its own (Felix) on the side; an application that has never heard of Vantage.
 *
 * <pre>
 * java -jar ort-direct-app.jar MODEL [--requests N] [--runs-per-request K] [--serve-until FILE] [--gc-per-request]
 * </pre>
 *
 * Each request ({@link #request}) runs the model K times (default 1) on fixed token ids; N requests are made
 * (default 5), or, with {@code --serve-until}, requests until FILE exists. The output is the same however many
 * requests were made; standard error says when it serves and how many runs there were. With {@code --gc-per-request}
 * it asks the JVM for a collection after each request, as a service that trims its heap between requests does.
 */
public final class OrtDirectApp {

    private final OrtEnvironment env;
    private final OrtSession session;
    private final int runsPerRequest;
    private long runs;

    private OrtDirectApp(Path model, int runsPerRequest) throws Exception {
        this.env = OrtEnvironment.getEnvironment();
        OrtSession.SessionOptions options = new OrtSession.SessionOptions();
        options.setIntraOpNumThreads(1);
        options.setOptimizationLevel(OrtSession.SessionOptions.OptLevel.ALL_OPT);
        this.session = env.createSession(model.toString(), options);
        options.close();
        this.runsPerRequest = runsPerRequest;
    }

    /** One request: K runs of the model; returns the first output value of the last. */
    float request() throws Exception {
        float first = 0;
        for (int k = 0; k < runsPerRequest; k++) {
            long[] ids = new long[16];
            Arrays.fill(ids, 1000 + k);
            long[] mask = new long[16];
            Arrays.fill(mask, 1);
            Map<String, OnnxTensor> inputs = new HashMap<>();
            inputs.put("input_ids", OnnxTensor.createTensor(env, LongBuffer.wrap(ids), new long[] {1, 16}));
            inputs.put("attention_mask", OnnxTensor.createTensor(env, LongBuffer.wrap(mask), new long[] {1, 16}));
            inputs.put("token_type_ids", OnnxTensor.createTensor(env, LongBuffer.wrap(new long[16]),
                    new long[] {1, 16}));
            try (OrtSession.Result r = session.run(inputs)) {
                first = ((float[][][]) r.get(0).getValue())[0][0][0];
            }
            inputs.values().forEach(OnnxTensor::close);
            runs++;
        }
        return first;
    }

    public static void main(String[] args) throws Exception {
        Path model = Path.of(args[0]);
        int requests = 5;
        int perRequest = 1;
        Path until = null;
        boolean gcPerRequest = false;
        for (int i = 1; i < args.length; i++) {
            switch (args[i]) {
                case "--requests" -> requests = Integer.parseInt(args[++i]);
                case "--runs-per-request" -> perRequest = Integer.parseInt(args[++i]);
                case "--serve-until" -> until = Path.of(args[++i]);
                case "--gc-per-request" -> gcPerRequest = true;
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        // the application's own libraries, of other versions than the agent's platform uses
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("jackson", com.fasterxml.jackson.databind.cfg.PackageVersion.VERSION.toString());
        doc.put("protobuf", Value.newBuilder().setStringValue("ort").build().toByteArray().length + " bytes, runtime "
                + com.google.protobuf.RuntimeVersion.MAJOR);
        Framework felix = new org.apache.felix.framework.FrameworkFactory().newFramework(Map.of(
                Constants.FRAMEWORK_STORAGE, Files.createTempDirectory("ort-direct-felix").toString(),
                Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT));
        felix.start();
        doc.put("felix", felix.getVersion().toString() + " " + (felix.getState() == Framework.ACTIVE ? "active" : "?"));
        felix.stop();
        felix.waitForStop(10_000);
        System.out.println(new ObjectMapper().writeValueAsString(doc));

        OrtDirectApp app = new OrtDirectApp(model, perRequest);
        if (until != null) {
            System.err.println("serving until " + until + " exists");
        }
        float value = 0;
        for (int r = 0; r < requests || until != null && !Files.exists(until); r++) {
            value = app.request();
            if (gcPerRequest) {
                System.gc();
            }
        }
        System.out.printf(Locale.ROOT, "onnxruntime %s: first value %.4f%n", app.env.getVersion(), value);
        System.err.println("runs: " + app.runs);
    }
}
