package dev.vantage.testcaller;

/** User code as a stack sees it: a frame outside the profiler's packages, which recorded stacks keep. */
public final class Caller {

    private Caller() {
    }

    /** Runs the body from this frame. */
    public static void call(Runnable body) {
        body.run();
    }
}
