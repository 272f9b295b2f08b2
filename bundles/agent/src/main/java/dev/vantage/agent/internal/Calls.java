package dev.vantage.agent.internal;

import java.util.Map;

import dev.vantage.agent.bootstrap.Bridge;
import dev.vantage.agent.bootstrap.Scope;
import dev.vantage.profiler.api.RecordFunction;

/**
 * The application's calls the agent records, and its steps. A library call (LangChain4j's {@code embed},
 * DJL's {@code predict}, its tokenizer's encodings) is a user annotation named after it, with the class called in
 * its arguments, when it is the outermost call of its library on its thread (an {@code embed} that calls
 * {@code embedAll} is one annotation). A method named as a step is an annotation too ({@code com.acme.Api#handle}).
 *
 * <p>Steps: each top-level call of a method named as a step ends a step; with none named, each outermost recorded
 * call on a thread does (an {@code embed}, a {@code predict}, a {@code run} of ONNX Runtime outside both). A step's
 * end is handed to {@link #onStep} on the thread that made the call, whether a profile records or not, so that a
 * schedule counts steps while it waits. Thread-safe; per-thread state is the thread's {@link CallState}.
 */
final class Calls {

    private final boolean namedSteps;
    private final Runnable onStep;

    /**
     * @param namedSteps whether methods were named as steps ({@code step=...})
     * @param onStep what a step's end does
     */
    Calls(boolean namedSteps, Runnable onStep) {
        this.namedSteps = namedSteps;
        this.onStep = onStep;
    }

    /** A library call or a step method begins; returns its scope, or null for a family it does not know. */
    Scope entered(String name, int family, Object target) {
        CallState t = CallState.current();
        if (family < 1 || family >= t.families.length) {
            return null;
        }
        boolean outermostOfFamily = t.families[family]++ == 0;
        RecordFunction annotation = null;
        if (outermostOfFamily && RecordFunction.recording()) {
            annotation = RecordFunction.scope(name, target == null ? Map.of()
                    : Map.of("class", target.getClass().getName()));
        }
        return new CallScope(t, family, annotation, endsStep(t, family));
    }

    /**
     * Notes that a recorded call (a library call, or a run) opens on a thread; returns whether its end is a step's.
     */
    boolean endsStep(CallState t, int family) {
        boolean outermost = t.depth++ == 0;
        return namedSteps ? family == Bridge.STEP_METHOD && t.families[Bridge.STEP_METHOD] == 1 : outermost;
    }

    /** A recorded call closes on a thread: a step ends if it was one. */
    void exited(CallState t, boolean step) {
        t.depth--;
        if (step) {
            onStep.run();
        }
    }

    /** A library call's or a step method's scope. */
    private final class CallScope extends Scope {
        private final CallState thread;
        private final int family;
        private final RecordFunction annotation;
        private final boolean step;
        private boolean closed;

        CallScope(CallState thread, int family, RecordFunction annotation, boolean step) {
            this.thread = thread;
            this.family = family;
            this.annotation = annotation;
            this.step = step;
        }

        @Override
        protected void exit() {
            if (closed) {
                return;
            }
            closed = true;
            thread.families[family]--;
            try {
                if (annotation != null) {
                    annotation.close();
                }
            } finally {
                exited(thread, step);
            }
        }
    }
}
