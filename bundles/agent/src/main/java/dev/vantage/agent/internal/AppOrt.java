package dev.vantage.agent.internal;

import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An application's ONNX Runtime, reached by reflection from its {@code OrtSession} class: the agent's bundle cannot
 * link against it (it is the application's, of the application's class loader and version). Only what the Java
 * API has had since 1.16 is used: creating a session from a path, bytes or (1.18 and later) a {@code ByteBuffer}
 * with {@code SessionOptions}, the options' setters, {@code enableProfiling}, the session's {@code run} methods,
 * {@code getProfilingStartTimeInNs}, {@code endProfiling}, {@code close}, and an input's {@code getInfo()}.
 *
 * <p>One instance per {@code OrtSession} class ({@link #of}), kept by the class ({@link ClassValue}), so nothing here
 * holds an application's class loader beyond its classes' life. Thread-safe.
 */
final class AppOrt {

    private static final ClassValue<AppOrt> BY_SESSION_CLASS = new ClassValue<>() {
        @Override
        protected AppOrt computeValue(Class<?> sessionClass) {
            return new AppOrt(sessionClass);
        }
    };

    final Class<?> sessionClass;
    private final Class<?> optionsClass;
    private final Method createFromPath;
    private final Method createFromBytes;
    private final Method createFromBuffer;
    private final Method enableProfiling;
    private final Method closeOptions;
    private final Method profilingStart;
    private final Method endProfiling;
    private final Method closeSession;
    private final Method version;
    private final Method info;
    private final Method shape;
    private final Field type;
    private final Map<String, Method> byDescriptor = new ConcurrentHashMap<>();

    private AppOrt(Class<?> sessionClass) {
        try {
            ClassLoader loader = sessionClass.getClassLoader();
            this.sessionClass = sessionClass;
            this.optionsClass = Class.forName("ai.onnxruntime.OrtSession$SessionOptions", false, loader);
            Class<?> environment = Class.forName("ai.onnxruntime.OrtEnvironment", false, loader);
            this.createFromPath = environment.getMethod("createSession", String.class, optionsClass);
            this.createFromBytes = environment.getMethod("createSession", byte[].class, optionsClass);
            this.createFromBuffer = optional(environment, "createSession", ByteBuffer.class, optionsClass);
            this.enableProfiling = optionsClass.getMethod("enableProfiling", String.class);
            this.closeOptions = optionsClass.getMethod("close");
            this.profilingStart = sessionClass.getMethod("getProfilingStartTimeInNs");
            this.endProfiling = sessionClass.getMethod("endProfiling");
            this.closeSession = sessionClass.getMethod("close");
            this.version = environment.getMethod("getVersion");
            this.info = Class.forName("ai.onnxruntime.OnnxValue", false, loader).getMethod("getInfo");
            Class<?> tensorInfo = Class.forName("ai.onnxruntime.TensorInfo", false, loader);
            this.shape = tensorInfo.getMethod("getShape");
            this.type = tensorInfo.getField("type");
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("older than 1.16, whose Java API the agent needs (" + e + ")", e);
        }
    }

    private static Method optional(Class<?> c, String name, Class<?>... parameters) {
        try {
            return c.getMethod(name, parameters);
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    /**
     * Returns the ONNX Runtime of an application's session.
     *
     * @throws IllegalStateException if its Java API lacks what the agent uses (older than 1.16)
     */
    static AppOrt of(Object session) {
        return BY_SESSION_CLASS.get(session.getClass());
    }

    /** Returns ONNX Runtime's version through an environment ({@code OrtEnvironment.getVersion()}). */
    String version(Object environment) {
        try {
            return String.valueOf(version.invoke(environment));
        } catch (ReflectiveOperationException | RuntimeException e) {
            return "unknown";
        }
    }

    /** Returns the {@code SessionOptions} class. */
    Class<?> optionsClass() {
        return optionsClass;
    }

    /**
     * Creates a session of a model with options: new options, the given calls replayed on them, and profiling on.
     *
     * @param environment the application's {@code OrtEnvironment}
     * @param model a path {@code String}, a {@code byte[]} or a {@code ByteBuffer}
     * @param calls the calls to replay, each {name and descriptor, arguments}
     * @param profilePrefix ONNX Runtime's profile file prefix
     * @throws Exception what ONNX Runtime threw
     */
    Object createProfiled(Object environment, Object model, Iterable<Object[]> calls, String profilePrefix)
            throws Exception {
        Object options = optionsClass.getConstructor().newInstance();
        try {
            for (Object[] call : calls) {
                invoke(method(optionsClass, (String) call[0]), options, (Object[]) call[1]);
            }
            invoke(enableProfiling, options, profilePrefix);
            if (model instanceof String path) {
                return invoke(createFromPath, environment, path, options);
            }
            if (model instanceof byte[] bytes) {
                return invoke(createFromBytes, environment, bytes, options);
            }
            if (model instanceof ByteBuffer buffer && createFromBuffer != null) {
                return invoke(createFromBuffer, environment, buffer.duplicate(), options);
            }
            throw new IllegalArgumentException("a model of " + (model == null ? "unknown origin"
                    : model.getClass().getName()));
        } finally {
            invoke(closeOptions, options);
        }
    }

    /** Returns when a session's profiling began, in nanoseconds since the epoch. */
    long profilingStart(Object session) throws Exception {
        return (Long) invoke(profilingStart, session);
    }

    /** Ends a session's profiling (ONNX Runtime writes its file) and closes it; returns the file. */
    String endProfiling(Object session) throws Exception {
        try {
            return (String) invoke(endProfiling, session);
        } finally {
            invoke(closeSession, session);
        }
    }

    /** Closes a session. */
    void close(Object session) throws Exception {
        invoke(closeSession, session);
    }

    /** Returns one of a session's methods by its name and descriptor, such as a {@code run}. */
    Method sessionMethod(String nameAndDescriptor) {
        return method(sessionClass, nameAndDescriptor);
    }

    /** The shape of an input ({@code OnnxTensorLike}), or an empty one when it is no tensor. */
    long[] shape(Object input) {
        try {
            Object i = info.invoke(input);
            return shape.getDeclaringClass().isInstance(i) ? (long[]) shape.invoke(i) : new long[0];
        } catch (ReflectiveOperationException | RuntimeException e) {
            return new long[0];
        }
    }

    /** The element type of an input as ONNX Runtime names it ({@code FLOAT}), or empty when it is no tensor. */
    String type(Object input) {
        try {
            Object i = info.invoke(input);
            return shape.getDeclaringClass().isInstance(i) ? String.valueOf(type.get(i)) : "";
        } catch (ReflectiveOperationException | RuntimeException e) {
            return "";
        }
    }

    /** A public method of a class by its name and JVM descriptor; cached. */
    private Method method(Class<?> owner, String nameAndDescriptor) {
        return byDescriptor.computeIfAbsent(owner.getName() + "." + nameAndDescriptor, k -> {
            int paren = nameAndDescriptor.indexOf('(');
            String name = nameAndDescriptor.substring(0, paren);
            String descriptor = nameAndDescriptor.substring(paren);
            for (Method m : owner.getMethods()) {
                if (m.getName().equals(name) && descriptor(m).equals(descriptor)) {
                    return m;
                }
            }
            throw new IllegalArgumentException("no method " + nameAndDescriptor + " in " + owner.getName());
        });
    }

    /** A method's JVM descriptor, such as {@code (Ljava/util/Map;)Lai/onnxruntime/OrtSession$Result;}. */
    static String descriptor(Method m) {
        StringBuilder b = new StringBuilder("(");
        for (Class<?> p : m.getParameterTypes()) {
            b.append(descriptor(p));
        }
        return b.append(')').append(descriptor(m.getReturnType())).toString();
    }

    private static String descriptor(Class<?> c) {
        if (c.isArray()) {
            return c.getName().replace('.', '/');
        }
        if (!c.isPrimitive()) {
            return "L" + c.getName().replace('.', '/') + ";";
        }
        return switch (c.getName()) {
            case "void" -> "V";
            case "boolean" -> "Z";
            case "byte" -> "B";
            case "char" -> "C";
            case "short" -> "S";
            case "int" -> "I";
            case "long" -> "J";
            case "float" -> "F";
            default -> "D";
        };
    }

    /** Invokes a method, throwing what it threw rather than its wrapper. */
    static Object invoke(Method m, Object target, Object... arguments) throws Exception {
        try {
            return m.invoke(target, arguments);
        } catch (InvocationTargetException e) {
            Throwable cause = e.getCause();
            if (cause instanceof Exception x) {
                throw x;
            }
            if (cause instanceof Error x) {
                throw x;
            }
            throw e;
        }
    }
}
