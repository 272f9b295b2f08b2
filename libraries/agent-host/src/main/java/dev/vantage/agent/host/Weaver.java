package dev.vantage.agent.host;

import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;

import dev.vantage.agent.bootstrap.Bridge;
import dev.vantage.cli.AgentOptions;

/**
 * Chooses and weaves the application's classes the agent records (see {@link Weaving} for the code woven):
 *
 * <ul>
 *   <li>{@code ai.onnxruntime.OrtSession} of whatever ONNX Runtime the application ships: its constructors (a
 *       session was created from a model and options), every public {@code run} and {@code close};</li>
 *   <li>{@code ai.onnxruntime.OrtSession$SessionOptions}: every public setter, so that a profiling session of the
 *       same model gets the same options;</li>
 *   <li>LangChain4j's {@code EmbeddingModel} and the classes of {@code dev.langchain4j} that implement it: their
 *       {@code embed} and {@code embedAll} methods;</li>
 *   <li>DJL's {@code Predictor} ({@code predict}, {@code batchPredict}) and {@code HuggingFaceTokenizer}
 *       ({@code encode}, {@code batchEncode}, {@code tokenize});</li>
 *   <li>the methods named as steps ({@code step=com.acme.Api#handle}), every overload.</li>
 * </ul>
 *
 * <p>Every other class is passed over after a look at its name, which is what the transformer costs the
 * application's class loading. Classes of the agent's own class loaders (its platform embeds an ONNX Runtime of its
 * own) and of class loaders that cannot see {@code Bridge} are never woven. A class that cannot be woven is left as
 * it is, and the first such failure is kept for the agent's status. Thread-safe: the JVM calls
 * {@link #transform} from any thread.
 */
final class Weaver implements ClassFileTransformer {

    static final String ORT_SESSION = "ai/onnxruntime/OrtSession";
    static final String ORT_OPTIONS = "ai/onnxruntime/OrtSession$SessionOptions";
    static final String ORT_RESULT = "Lai/onnxruntime/OrtSession$Result;";
    static final String EMBEDDING_MODEL = "dev/langchain4j/model/embedding/EmbeddingModel";
    static final String PREDICTOR = "ai/djl/inference/Predictor";
    static final String TOKENIZER = "ai/djl/huggingface/tokenizers/HuggingFaceTokenizer";
    /** Setters not replayed on a profiling session are still recorded; these are not setters at all. */
    private static final Set<String> NOT_OPTIONS = Set.of("close", "getConfigEntries", "<init>");

    private final Map<String, List<String>> steps = new ConcurrentHashMap<>();
    private final Set<String> embeddingModels = ConcurrentHashMap.newKeySet();
    private final ClassLoader own;
    private final Map<ClassLoader, Boolean> seesBridge = Collections.synchronizedMap(new WeakHashMap<>());
    private final Set<String> woven = ConcurrentHashMap.newKeySet();
    private volatile String failure;
    private volatile String unseen;

    /**
     * @param stepMethods the methods named as steps
     * @param own the agent host's class loader: it and the loaders of classes it defined (Felix's bundle loaders)
     *     are the agent's own
     */
    Weaver(List<AgentOptions.StepMethod> stepMethods, ClassLoader own) {
        for (AgentOptions.StepMethod m : stepMethods) {
            steps.computeIfAbsent(m.className().replace('.', '/'), k -> new ArrayList<>()).add(m.method());
        }
        embeddingModels.add(EMBEDDING_MODEL);
        this.own = own;
    }

    @Override
    public byte[] transform(ClassLoader loader, String className, Class<?> redefined, ProtectionDomain domain,
            byte[] bytes) {
        try {
            if (className == null || !candidate(className) || own(loader)) {
                return null;
            }
            byte[] out = weave(className, bytes, loader);
            if (out != null) {
                woven.add(className.replace('/', '.'));
            }
            return out;
        } catch (Throwable t) {
            if (failure == null) {
                failure = className + ": " + t;
            }
            return null;
        }
    }

    /** Whether a class may be one to weave, by its name alone: the check every class the JVM loads pays. */
    private boolean candidate(String name) {
        return name.startsWith("ai/onnxruntime/") || name.startsWith("dev/langchain4j/") || name.startsWith("ai/djl/")
                || steps.containsKey(name);
    }

    private boolean own(ClassLoader loader) {
        return loader != null && (loader == own || loader.getClass().getClassLoader() == own);
    }

    private boolean bridgeVisible(ClassLoader loader) {
        if (loader == null) {
            return true;
        }
        return seesBridge.computeIfAbsent(loader, l -> {
            try {
                return Class.forName(Bridge.class.getName(), false, l) == Bridge.class;
            } catch (ClassNotFoundException | LinkageError e) {
                return false;
            }
        });
    }

    /** Weaves a class, or returns null when it is not one to weave. */
    byte[] weave(String name, byte[] bytes, ClassLoader loader) {
        ClassReader reader = new ClassReader(bytes);
        boolean embedding = name.startsWith("dev/langchain4j/") && embeddingModel(name, reader);
        List<String> stepNames = steps.get(name);
        boolean any = embedding || stepNames != null || name.equals(ORT_SESSION) || name.equals(ORT_OPTIONS)
                || name.equals(PREDICTOR) || name.equals(TOKENIZER);
        if (!any) {
            return null;
        }
        if (!bridgeVisible(loader)) {
            if (unseen == null) {
                unseen = name.replace('/', '.') + " (its class loader, " + loader + ", cannot see the system class"
                        + " loader's dev.vantage.agent.bootstrap)";
            }
            return null;
        }
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        int[] changed = {0};
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            private boolean frames;

            @Override
            public void visit(int version, int access, String n, String signature, String superName,
                    String[] interfaces) {
                // class files before Java 6 have no stack map frames; the verifier infers them
                frames = (version & 0xFFFF) >= Opcodes.V1_6;
                super.visit(version, access, n, signature, superName, interfaces);
            }

            @Override
            public MethodVisitor visitMethod(int access, String method, String descriptor, String signature,
                    String[] exceptions) {
                MethodVisitor mv = super.visitMethod(access, method, descriptor, signature, exceptions);
                MethodVisitor w = woven(mv, access, method, descriptor, frames);
                if (w != mv) {
                    changed[0]++;
                }
                return w;
            }

            private MethodVisitor woven(MethodVisitor mv, int access, String method, String descriptor,
                    boolean frames) {
                boolean concrete = (access & (Opcodes.ACC_ABSTRACT | Opcodes.ACC_NATIVE | Opcodes.ACC_SYNTHETIC
                        | Opcodes.ACC_BRIDGE)) == 0;
                if (!concrete) {
                    return mv;
                }
                boolean isPublic = (access & Opcodes.ACC_PUBLIC) != 0;
                boolean isStatic = (access & Opcodes.ACC_STATIC) != 0;
                if (name.equals(ORT_SESSION)) {
                    if (method.equals("<init>") && descriptor.contains("Lai/onnxruntime/OrtSession$SessionOptions;")) {
                        return new Weaving.AtReturn(mv, access, method, descriptor);
                    }
                    if (isPublic && !isStatic && method.equals("run") && descriptor.endsWith(ORT_RESULT)) {
                        return new Weaving.Around(mv, access, method, descriptor, name, frames, new Weaving.Run());
                    }
                    if (isPublic && method.equals("close") && descriptor.equals("()V")) {
                        return new Weaving.AtEntry(mv, access, method, descriptor, false);
                    }
                    return mv;
                }
                if (name.equals(ORT_OPTIONS)) {
                    if (isPublic && !isStatic && descriptor.endsWith(")V") && !NOT_OPTIONS.contains(method)) {
                        return new Weaving.AtEntry(mv, access, method, descriptor, true);
                    }
                    return mv;
                }
                String call = null;
                int family = 0;
                if (stepNames != null && stepNames.contains(method)) {
                    call = name.replace('/', '.') + "#" + method;
                    family = Bridge.STEP_METHOD;
                } else if (isStatic || !isPublic) {
                    return mv;
                } else if (embedding && (method.equals("embed") || method.equals("embedAll"))) {
                    call = "EmbeddingModel." + method;
                    family = Bridge.EMBEDDING_MODEL;
                } else if (name.equals(PREDICTOR) && (method.equals("predict") || method.equals("batchPredict"))) {
                    call = "Predictor." + method;
                    family = Bridge.PREDICTOR;
                } else if (name.equals(TOKENIZER) && (method.equals("encode") || method.equals("batchEncode")
                        || method.equals("tokenize"))) {
                    call = "HuggingFaceTokenizer." + method;
                    family = Bridge.TOKENIZER;
                }
                if (call == null || method.equals("<init>") || method.equals("<clinit>")) {
                    return mv;
                }
                return new Weaving.Around(mv, access, method, descriptor, name, frames,
                        new Weaving.Call(call, family));
            }
        }, ClassReader.EXPAND_FRAMES);
        return changed[0] == 0 ? null : writer.toByteArray();
    }

    /**
     * Whether a class of LangChain4j is its {@code EmbeddingModel} or implements it, as far as the classes loaded so
     * far tell: a supertype is loaded before its subtypes, so a known implementation's subclass is known too.
     */
    private boolean embeddingModel(String name, ClassReader reader) {
        if (embeddingModels.contains(name)) {
            return true;
        }
        boolean is = embeddingModels.contains(reader.getSuperName());
        for (String i : reader.getInterfaces()) {
            is |= embeddingModels.contains(i);
        }
        if (is) {
            embeddingModels.add(name);
        }
        return is;
    }

    /**
     * Weaves the classes to weave that the JVM loaded before the agent (a load into a running JVM): their
     * supertypes are read from the loaded classes, then the JVM retransforms them through {@link #transform}.
     *
     * @return how many classes were retransformed
     */
    int retransformLoaded(Instrumentation inst) {
        List<Class<?>> targets = new ArrayList<>();
        for (Class<?> c : inst.getAllLoadedClasses()) {
            String name = c.getName().replace('.', '/');
            if (!candidate(name) || own(c.getClassLoader()) || !inst.isModifiableClass(c)) {
                continue;
            }
            if (name.startsWith("dev/langchain4j/") && implementsEmbeddingModel(c)) {
                embeddingModels.add(name);
            }
            targets.add(c);
        }
        int done = 0;
        for (Class<?> c : targets) {
            try {
                inst.retransformClasses(c);
                done++;
            } catch (Throwable t) {
                if (failure == null) {
                    failure = c.getName() + ": " + t;
                }
            }
        }
        return done;
    }

    private static boolean implementsEmbeddingModel(Class<?> c) {
        for (Class<?> k = c; k != null; k = k.getSuperclass()) {
            if (k.getName().equals("dev.langchain4j.model.embedding.EmbeddingModel")) {
                return true;
            }
            for (Class<?> i : k.getInterfaces()) {
                if (implementsEmbeddingModel(i)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** Returns the classes woven so far, by name; a snapshot. */
    Set<String> woven() {
        return Set.copyOf(woven);
    }

    /** Returns the first class that could not be woven and why, or null. */
    String failure() {
        return failure;
    }

    /** Returns the first class to weave that was not, because its class loader cannot see the bridge; or null. */
    String unseen() {
        return unseen;
    }
}
