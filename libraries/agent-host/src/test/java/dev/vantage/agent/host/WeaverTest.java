package dev.vantage.agent.host;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

import org.junit.After;
import org.junit.Test;

import dev.vantage.agent.bootstrap.Bridge;
import dev.vantage.agent.bootstrap.Hooks;
import dev.vantage.agent.bootstrap.Scope;
import dev.vantage.cli.AgentOptions;

/**
 * The woven code, on classes of every shape it meets: methods named as steps (static or not, with wide arguments,
 * throwing, catching, looping from their first instruction), stand-ins of ONNX Runtime's session and options and of
 * LangChain4j's embedding models. The woven methods return and throw what they did unwoven, each call enters and
 * exits once, and what the platform's hooks throw changes nothing.
 */
public class WeaverTest {

    /** Hooks recording what the woven code tells, with a result to hand back for runs and a mode that throws. */
    static final class Recorder implements Hooks {
        final List<String> calls = new ArrayList<>();
        final List<Object[]> created = new ArrayList<>();
        Function<Object, Object> runResult = session -> null;
        boolean throwing;

        private Scope scope(String what, Object result) {
            return new Scope() {
                @Override
                public Object result() {
                    return result;
                }

                @Override
                protected void exit() {
                    calls.add("exit " + what);
                    if (throwing) {
                        throw new IllegalStateException("broken exit");
                    }
                }
            };
        }

        @Override
        public void sessionCreated(Object session, Object[] arguments, String creator) {
            calls.add("created");
            created.add(arguments);
            if (throwing) {
                throw new IllegalStateException("broken hooks");
            }
        }

        @Override
        public void sessionClosed(Object session) {
            calls.add("closed");
        }

        @Override
        public Scope runEntered(Object session, String method, Object[] arguments) {
            calls.add("run " + method.substring(0, method.indexOf(')') + 1));
            if (throwing) {
                throw new IllegalStateException("broken hooks");
            }
            return scope("run", runResult.apply(session));
        }

        @Override
        public Scope callEntered(String name, int family, Object target) {
            calls.add("call " + name + " " + family + (target == null ? " static" : ""));
            if (throwing) {
                throw new StackOverflowError("broken hooks");
            }
            return scope(name, null);
        }

        @Override
        public void exiting() {
        }
    }

    /** Defines the classes of some packages from woven bytes, child first; the rest comes from the test's loader. */
    static final class WovenLoader extends ClassLoader {
        private final Weaver weaver;
        private final List<String> packages;

        WovenLoader(Weaver weaver, String... packages) {
            super(WeaverTest.class.getClassLoader());
            this.weaver = weaver;
            this.packages = List.of(packages);
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null && packages.stream().anyMatch(name::startsWith)) {
                    String internal = name.replace('.', '/');
                    try (InputStream in = getParent().getResourceAsStream(internal + ".class")) {
                        byte[] bytes = in.readAllBytes();
                        byte[] woven = weaver.transform(this, internal, null, null, bytes);
                        byte[] b = woven == null ? bytes : woven;
                        c = defineClass(name, b, 0, b.length);
                    } catch (IOException e) {
                        throw new ClassNotFoundException(name, e);
                    }
                }
                return c != null ? c : super.loadClass(name, resolve);
            }
        }
    }

    private Recorder hooks;

    private Recorder install() {
        hooks = new Recorder();
        Bridge.install(hooks);
        return hooks;
    }

    @After
    public void uninstall() {
        if (hooks != null) {
            Bridge.uninstall(hooks);
        }
    }

    private static Object call(Object target, String name, Class<?>[] types, Object... args) throws Throwable {
        Class<?> c = target instanceof Class<?> k ? k : target.getClass();
        Method m;
        try {
            m = c.getMethod(name, types);
        } catch (NoSuchMethodException e) {
            m = c.getDeclaredMethod(name, types);
            m.setAccessible(true);
        }
        try {
            return m.invoke(target instanceof Class<?> ? null : target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    /** Calls every overload of {@code handle} on an {@code Api}, returning what each returned or threw. */
    private static List<String> everyHandle(Object api) throws Throwable {
        List<String> results = new ArrayList<>();
        results.add(String.valueOf(call(api, "handle", new Class<?>[] {int.class}, 21)));
        results.add(String.valueOf(call(api, "handle", new Class<?>[] {String.class, long.class, double.class,
                boolean.class}, "s", 1L << 40, 2.5, true)));
        results.add(String.valueOf(call(api.getClass(), "handle", new Class<?>[] {long.class, long.class}, 3L, 4L)));
        results.add(String.valueOf(call(api, "handle", new Class<?>[] {int.class, int.class}, 1, 2)));
        Throwable thrown = assertThrows(IllegalArgumentException.class, () -> call(api, "handle",
                new Class<?>[] {int.class, int.class}, -1, 2));
        results.add(thrown.getMessage());
        results.add(String.valueOf(call(api, "handle", new Class<?>[] {int[].class}, (Object) new int[] {1, -1, 2})));
        call(api, "handle", new Class<?>[0]);
        results.add(String.valueOf(call(api, "log", new Class<?>[0])));
        return results;
    }

    @Test
    public void stepMethodsOfEveryShapeReturnAndThrowAsBeforeAndEnterAndExitOncePerCall() throws Throwable {
        List<String> unwoven = everyHandle(new com.example.app.Api());
        Weaver weaver = new Weaver(List.of(new AgentOptions.StepMethod("com.example.app.Api", "handle")),
                getClass().getClassLoader().getParent());
        Class<?> api = new WovenLoader(weaver, "com.example.app.").loadClass("com.example.app.Api");
        assertTrue(weaver.woven().contains("com.example.app.Api"));
        Recorder r = install();
        assertEquals(unwoven, everyHandle(api.getConstructor().newInstance()));
        String name = "com.example.app.Api#handle";
        int step = Bridge.STEP_METHOD;
        assertEquals(List.of("call " + name + " " + step, "exit " + name,
                "call " + name + " " + step, "exit " + name,
                "call " + name + " " + step + " static", "exit " + name,
                "call " + name + " " + step, "exit " + name,
                "call " + name + " " + step, "exit " + name,
                "call " + name + " " + step, "exit " + name,
                "call " + name + " " + step, "exit " + name), r.calls);
        // hooks that throw on entry and on exit change nothing the application sees
        r.throwing = true;
        assertEquals(unwoven, everyHandle(api.getConstructor().newInstance()));
    }

    @Test
    public void sessionsAreReportedWithTheirModelAndOptionsAndARunThePlatformTookSkipsItsBody() throws Throwable {
        Weaver weaver = new Weaver(List.of(), getClass().getClassLoader().getParent());
        WovenLoader loader = new WovenLoader(weaver, "ai.onnxruntime.");
        Class<?> envClass = loader.loadClass("ai.onnxruntime.OrtEnvironment");
        Class<?> optionsClass = loader.loadClass("ai.onnxruntime.OrtSession$SessionOptions");
        Class<?> resultClass = loader.loadClass("ai.onnxruntime.OrtSession$Result");
        loader.loadClass("ai.onnxruntime.OrtSession");
        assertEquals("the session and its options, not its result nor the environment",
                Set.of("ai.onnxruntime.OrtSession", "ai.onnxruntime.OrtSession$SessionOptions"),
                Set.copyOf(weaver.woven()));
        Recorder r = install();
        Object env = envClass.getConstructor().newInstance();
        Object options = optionsClass.getConstructor().newInstance();
        call(options, "setIntraOpNumThreads", new Class<?>[] {int.class}, 3);
        call(options, "addConfigEntry", new Class<?>[] {String.class, String.class}, "k", "v");
        assertEquals(3, call(options, "getThreads", new Class<?>[0]));
        List<Object[]> optionCalls = Bridge.optionCalls(options);
        assertEquals(2, optionCalls.size());
        assertEquals("setIntraOpNumThreads(I)V", optionCalls.get(0)[0]);
        assertArrayEquals(new Object[] {3}, (Object[]) optionCalls.get(0)[1]);
        Object session = call(env, "createSession", new Class<?>[] {String.class, optionsClass}, "model.onnx",
                options);
        assertEquals(List.of("created"), r.calls);
        assertArrayEquals(new Object[] {env, "model.onnx", null, options}, r.created.get(0));
        // a constructor that throws reports nothing
        assertThrows(IllegalArgumentException.class, () -> call(env, "createSession",
                new Class<?>[] {String.class, optionsClass}, "", options));
        assertEquals(1, r.created.size());

        Map<String, Object> bad = Map.of("bad", 1);
        Class<?>[] oneMap = {Map.class};
        // no result from the platform: the body runs, and what it throws reaches the application as it was
        r.calls.clear();
        Throwable refused = assertThrows(IllegalStateException.class, () -> call(session, "run", oneMap, bad));
        assertEquals("ONNX Runtime refuses input 'bad'", refused.getMessage());
        assertEquals(List.of("run run(Ljava/util/Map;)",
                "run run(Ljava/util/Map;Ljava/util/Set;Lai/onnxruntime/OrtSession$SessionOptions;)", "exit run",
                "exit run"), r.calls);
        // the platform ran it on its profiling session: its result, without the body
        Object fromTwin = resultClass.getConstructor(String.class).newInstance("from the profiling session");
        r.runResult = s -> fromTwin;
        assertSame(fromTwin, call(session, "run", oneMap, bad));
        // a result of another type is not returned: the body runs
        r.runResult = s -> "not a result";
        assertEquals("model.onnx: [x]", resultClass.getField("text").get(call(session, "run", oneMap,
                Map.of("x", 1))));
        r.calls.clear();
        call(session, "close", new Class<?>[0]);
        assertEquals(List.of("closed"), r.calls);
        // wide arguments pass through methods that are not woven
        assertEquals(7L, call(session, "totalOf", new Class<?>[] {long.class, double.class, int.class}, 1L, 2.0, 4));
    }

    @Test
    public void langChain4jsEmbeddingModelsAreFoundThroughTheirSupertypes() throws Throwable {
        Weaver weaver = new Weaver(List.of(), getClass().getClassLoader().getParent());
        Class<?> model = new WovenLoader(weaver, "dev.langchain4j.").loadClass(
                "dev.langchain4j.model.embedding.onnx.SmallModel");
        assertEquals(Set.of("dev.langchain4j.model.embedding.EmbeddingModel",
                "dev.langchain4j.model.embedding.onnx.AbstractModel"), Set.copyOf(weaver.woven()));
        Recorder r = install();
        float[] v = (float[]) call(model.getConstructor().newInstance(), "embed", new Class<?>[] {String.class},
                "four");
        assertEquals(4f, v[0], 0f);
        int family = Bridge.EMBEDDING_MODEL;
        assertEquals(List.of("call EmbeddingModel.embed " + family, "call EmbeddingModel.embedAll " + family,
                "exit EmbeddingModel.embedAll", "exit EmbeddingModel.embed"), r.calls);
    }

    @Test
    public void classesThatAreNotTheApplicationsToRecordAreLeftAlone() throws Exception {
        ClassLoader own = getClass().getClassLoader().getParent();
        Weaver weaver = new Weaver(List.of(), own);
        byte[] bytes;
        try (InputStream in = getClass().getResourceAsStream("/ai/onnxruntime/OrtSession.class")) {
            bytes = in.readAllBytes();
        }
        assertNotNull(weaver.transform(getClass().getClassLoader(), "ai/onnxruntime/OrtSession", null, null, bytes));
        assertNull("the agent's own ONNX Runtime", weaver.transform(own, "ai/onnxruntime/OrtSession", null, null,
                bytes));
        assertNull("a class of no library the agent records", weaver.transform(getClass().getClassLoader(),
                "com/example/app/Api", null, null, bytes));
        assertNull("another class of ONNX Runtime", weaver.transform(getClass().getClassLoader(),
                "ai/onnxruntime/OnnxTensor", null, null, bytes));
        assertNull("bytes that are no class are left as they are", weaver.transform(getClass().getClassLoader(),
                "ai/onnxruntime/OrtSession", null, null, new byte[] {1, 2, 3}));
        assertTrue(weaver.failure().startsWith("ai/onnxruntime/OrtSession: "));
    }
}
