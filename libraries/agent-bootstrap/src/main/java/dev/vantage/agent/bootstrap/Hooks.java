package dev.vantage.agent.bootstrap;

/**
 * What the agent's platform does with the calls woven into the application's classes, as {@link Bridge} hands them
 * over: the application's ONNX Runtime sessions (created, run, closed) and the calls of the libraries above it and
 * of the methods named as steps. Implemented by the agent's bundle and installed with {@link Bridge#install}.
 *
 * <p>Implementations are called on the application's threads, in the middle of its calls: they are fast when
 * nothing records, thread-safe, and may throw (the bridge swallows every throwable, so nothing reaches the
 * application), though they should not.
 */
public interface Hooks {

    /**
     * An {@code ai.onnxruntime.OrtSession} of the application was created.
     *
     * @param session the session
     * @param arguments its constructor's arguments: the environment, the model (a path {@code String}, a
     *     {@code byte[]} or a {@code ByteBuffer}), the allocator and the {@code SessionOptions}
     * @param creator the name of the application's class that created it (the first caller outside ONNX Runtime
     *     and the JDK), or empty
     */
    void sessionCreated(Object session, Object[] arguments, String creator);

    /** The application closes a session. */
    void sessionClosed(Object session);

    /**
     * The application calls one of a session's {@code run} methods.
     *
     * @param session the session
     * @param method the method's name and JVM descriptor, such as {@code run(Ljava/util/Map;)L...;}
     * @param arguments the call's arguments
     * @return the call's scope, or null when nothing is recorded
     */
    Scope runEntered(Object session, String method, Object[] arguments);

    /**
     * A call of a library above ONNX Runtime, or of a method named as a step, begins.
     *
     * @param name what profiles call it, such as {@code EmbeddingModel.embed}
     * @param family which calls nest as one ({@link Bridge#EMBEDDING_MODEL}, ...): only the outermost call of a
     *     family on a thread is recorded
     * @param target the object called, or null for a static method
     * @return the call's scope, or null when nothing is recorded
     */
    Scope callEntered(String name, int family, Object target);

    /**
     * The application exits (a JVM shutdown hook calls this): end every capture, writing it, before returning. The
     * agent's own calls into the application's classes are refused after that ({@link Bridge#closeOwn}).
     */
    void exiting();
}
