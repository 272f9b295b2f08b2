package dev.vantage.agent.bootstrap;

/**
 * What an entered call leaves for its exit: the platform's record of the call (an annotation, an {@code ort::run}),
 * and, when the platform ran the call itself (on a profiling session), its result. Made by {@link Hooks}; the woven
 * code holds it in a local between the entry and every exit of the method.
 */
public abstract class Scope {

    /**
     * Returns the call's result when the platform ran it in the application's place: the woven method then returns
     * it without running its own body. Null (the default) lets the body run.
     */
    public Object result() {
        return null;
    }

    /** Ends the record of the call; called once, at the method's exit, normal or by an exception. */
    protected abstract void exit();
}
