package dev.vantage.profiler.dispatch;

/** What a {@link DispatchHook} is told about. */
public enum CallKind {
    /** An op the runtime dispatched to a kernel. */
    OP,
    /** A user scope opened with {@code RecordFunction}. */
    USER_ANNOTATION
}
