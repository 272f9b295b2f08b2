package dev.vantage.agent.bootstrap;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.After;
import org.junit.Test;

import com.example.app.SessionMaker;

/**
 * The bridge between the woven code and the platform: it swallows what the platform throws, keeps the sessions
 * created before the platform is up for it, holds the application's recorded calls until then when asked to, and
 * keeps the agent's own calls out of what it reports.
 */
public class BridgeTest {

    /** Hooks that record what they were told, and throw when asked to. */
    static class Recording implements Hooks {
        final List<String> calls = new ArrayList<>();
        volatile boolean throwing;

        @Override
        public synchronized void sessionCreated(Object session, Object[] arguments, String creator) {
            calls.add("created " + session + " by " + creator);
            if (throwing) {
                throw new IllegalStateException("broken hooks");
            }
        }

        @Override
        public synchronized void sessionClosed(Object session) {
            calls.add("closed " + session);
            if (throwing) {
                throw new IllegalStateException("broken hooks");
            }
        }

        @Override
        public synchronized Scope runEntered(Object session, String method, Object[] arguments) {
            calls.add("run " + method);
            if (throwing) {
                throw new OutOfMemoryError("not really");
            }
            return null;
        }

        @Override
        public synchronized Scope callEntered(String name, int family, Object target) {
            calls.add("call " + name);
            if (throwing) {
                throw new IllegalStateException("broken hooks");
            }
            return new Scope() {
                @Override
                protected void exit() {
                    calls.add("exit " + name);
                    throw new IllegalStateException("broken exit");
                }
            };
        }

        @Override
        public void exiting() {
            calls.add("exiting");
        }
    }

    private Recording hooks;

    @After
    public void uninstall() {
        if (hooks != null) {
            Bridge.uninstall(hooks);
        }
    }

    @Test
    public void whatTheHooksThrowNeverReachesTheCaller() {
        hooks = new Recording();
        hooks.throwing = true;
        Bridge.install(hooks);
        SessionMaker.create("s1");
        Bridge.sessionClosed("s1");
        assertNull(Bridge.runEntered("s1", "run()V", new Object[0]));
        assertNull(Bridge.callEntered("EmbeddingModel.embed", Bridge.EMBEDDING_MODEL, null));
        hooks.throwing = false;
        Object scope = Bridge.callEntered("EmbeddingModel.embed", Bridge.EMBEDDING_MODEL, null);
        Bridge.exited(scope);
        assertNull("a scope without a result lets the body run", Bridge.result(scope));
        Bridge.exited("not a scope");
        assertEquals(List.of("created s1 by com.example.app.SessionMaker", "closed s1", "run run()V",
                "call EmbeddingModel.embed", "call EmbeddingModel.embed", "exit EmbeddingModel.embed"), hooks.calls);
    }

    @Test
    public void sessionsCreatedBeforeThePlatformAreHandedToItsHooksAtInstallation() {
        Object early = new Object() {
            @Override
            public String toString() {
                return "early";
            }
        };
        SessionMaker.create(early, "env", "model.onnx");
        // before the platform, runs and calls are not recorded and cost nothing but the check
        assertNull(Bridge.runEntered(early, "run()V", new Object[0]));
        hooks = new Recording();
        Bridge.install(hooks);
        assertEquals(List.of("created early by com.example.app.SessionMaker"), hooks.calls);
        assertSame(hooks, Bridge.hooks());
        Recording other = new Recording();
        assertThrows(IllegalStateException.class, () -> Bridge.install(other));
    }

    @Test
    public void aHoldKeepsRecordedCallsWaitingUntilTheHooksAreInstalled() throws Exception {
        Bridge.holdUntilInstalled(60_000);
        AtomicReference<Hooks> seen = new AtomicReference<>();
        Thread application = new Thread(() -> {
            Bridge.callEntered("Predictor.predict", Bridge.PREDICTOR, null);
            seen.set(Bridge.hooks());
        });
        application.start();
        // the call waits in the bridge (a thread that did not would have ended, seeing no hooks)
        while (application.getState() != Thread.State.TIMED_WAITING && application.isAlive()) {
            Thread.onSpinWait();
        }
        hooks = new Recording();
        Bridge.install(hooks);
        application.join();
        // the call waited for the hooks, and reached them
        assertSame(hooks, seen.get());
        assertEquals(List.of("call Predictor.predict"), hooks.calls);
    }

    @Test
    public void anInterruptEndsAHoldAndStaysSetForTheApplication() throws Exception {
        Bridge.holdUntilInstalled(60_000);
        AtomicReference<Boolean> interrupted = new AtomicReference<>();
        Thread application = new Thread(() -> {
            Thread.currentThread().interrupt();
            Bridge.callEntered("Predictor.predict", Bridge.PREDICTOR, null);
            interrupted.set(Thread.currentThread().isInterrupted());
        });
        application.start();
        application.join();
        assertEquals(Boolean.TRUE, interrupted.get());
        Bridge.release();
    }

    @Test
    public void theAgentsOwnCallsAreNotReportedAndEndBeforeTheProcessExits() throws Exception {
        hooks = new Recording();
        Bridge.install(hooks);
        Bridge.beginOwn();
        try {
            Bridge.sessionCreated("twin", new Object[0]);
            assertNull(Bridge.runEntered("twin", "run()V", new Object[0]));
            assertNull(Bridge.callEntered("EmbeddingModel.embed", Bridge.EMBEDDING_MODEL, null));
        } finally {
            Bridge.endOwn();
        }
        assertEquals(List.of(), hooks.calls);
        Bridge.exiting();
        assertEquals(List.of("exiting"), hooks.calls);
    }

    @Test
    public void closingTheAgentsOwnCallsWaitsForThoseUnderWayAndRefusesNewOnes() throws Exception {
        // a bridge of its own, in a class loader of its own: closing is for good
        java.net.URL classes = Bridge.class.getProtectionDomain().getCodeSource().getLocation();
        try (java.net.URLClassLoader loader = new java.net.URLClassLoader(new java.net.URL[] {classes}, null)) {
            Class<?> bridge = loader.loadClass(Bridge.class.getName());
            java.lang.reflect.Method begin = bridge.getMethod("beginOwn");
            java.lang.reflect.Method end = bridge.getMethod("endOwn");
            java.lang.reflect.Method close = bridge.getMethod("closeOwn", long.class);
            CountDownLatch inside = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            List<String> order = java.util.Collections.synchronizedList(new ArrayList<>());
            Thread own = new Thread(() -> {
                try {
                    begin.invoke(null);
                    inside.countDown();
                    release.await();
                    order.add("own call ends");
                    end.invoke(null);
                } catch (ReflectiveOperationException | InterruptedException e) {
                    throw new AssertionError(e);
                }
            });
            own.start();
            inside.await();
            Thread exiting = new Thread(() -> {
                try {
                    close.invoke(null, 60_000L);
                    order.add("closed");
                } catch (ReflectiveOperationException e) {
                    throw new AssertionError(e);
                }
            });
            exiting.start();
            // the closing thread waits for the call under way: let the call end once it is waiting
            while (exiting.getState() != Thread.State.TIMED_WAITING && exiting.isAlive()) {
                Thread.onSpinWait();
            }
            release.countDown();
            exiting.join();
            own.join();
            assertEquals(List.of("own call ends", "closed"), order);
            java.lang.reflect.InvocationTargetException refused = assertThrows(
                    java.lang.reflect.InvocationTargetException.class, () -> begin.invoke(null));
            assertEquals("the application is exiting", refused.getCause().getMessage());
        }
    }
}
