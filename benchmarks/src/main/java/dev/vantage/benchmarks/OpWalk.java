package dev.vantage.benchmarks;

import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import com.sun.jdi.ArrayReference;
import com.sun.jdi.Bootstrap;
import com.sun.jdi.Method;
import com.sun.jdi.ObjectReference;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.StackFrame;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.Value;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.connect.LaunchingConnector;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.ClassPrepareEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.MethodEntryEvent;
import com.sun.jdi.event.MethodExitEvent;
import com.sun.jdi.event.VMDeathEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.EventRequestManager;
import com.sun.jdi.request.MethodEntryRequest;
import com.sun.jdi.request.MethodExitRequest;

import dev.vantage.device.cpu.host.CpuHost;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.core.internal.StandaloneProfiler;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.Backends;

/**
 * Walks one recorded {@code c = a.add(other)} through the code, as a debugger steps through it, and counts what a
 * reader following it meets: the measure of docs/architecture.md, "Following one op". It starts a second JVM
 * ({@link Target}) that installs the CPU device's real backend, starts a profile recording CPU ops (and memory with
 * {@code --mem}), runs the op three times to settle the thread's state, and then once more inside
 * {@link Target#walk}. Through the JDK's debugger interface (JDI) this program sees every method of
 * {@code dev.vantage} code entered and left on that thread during the last op, and prints:
 * <ul>
 *   <li><em>files</em>: the source files whose code ran, grouped by module;</li>
 *   <li><em>stays</em>: the method calls {@code other} is handed to, as an argument or as an element of an array
 *       argument, in the files they are in (calling {@code other}'s own methods reads it; it is not handed on);</li>
 *   <li><em>returns</em>: those of the stays that return a value to their caller;</li>
 *   <li><em>needless returns</em>: methods, handed {@code other} or not, that returned one of their own arguments;</li>
 *   <li><em>thread-state lookups</em>: calls of {@code DispatchThread.current()} and of {@code ThreadLocal.get()} from
 *       {@code dev.vantage} code other than {@code DispatchThread}'s own lookup.</li>
 * </ul>
 * JDK code is not counted. Run: {@code java -cp benchmarks/target/benchmarks.jar dev.vantage.benchmarks.OpWalk
 * [--mem] [--methods] [--trail]}; {@code --methods} also prints every method that ran, {@code --trail} each stay's
 * entry and exit in order.
 */
public final class OpWalk {

    private OpWalk() {
    }

    /** One method call on the walked thread, from its entry to its exit. */
    private record Call(String method, String file, boolean holdsOther, List<Value> arguments) {
    }

    public static void main(String[] args) throws Exception {
        boolean mem = List.of(args).contains("--mem");
        LaunchingConnector launcher = Bootstrap.virtualMachineManager().defaultConnector();
        Map<String, Connector.Argument> options = launcher.defaultArguments();
        options.get("main").setValue(Target.class.getName() + (mem ? " --mem" : ""));
        options.get("options").setValue("-cp " + System.getProperty("java.class.path"));
        VirtualMachine vm = launcher.launch(options);
        drain(vm.process().getInputStream());
        drain(vm.process().getErrorStream());
        EventRequestManager requests = vm.eventRequestManager();
        ClassPrepareRequest prepare = requests.createClassPrepareRequest();
        prepare.addClassFilter(Target.class.getName());
        prepare.enable();

        Map<String, Set<String>> files = new LinkedHashMap<>();
        List<String> stays = new ArrayList<>();
        List<String> returns = new ArrayList<>();
        Set<String> needless = new LinkedHashSet<>();
        int needlessCalls = 0;
        Deque<Call> open = new ArrayDeque<>();
        List<String> trail = new ArrayList<>();
        Set<String> methods = new LinkedHashSet<>();
        ObjectReference other = null;
        MethodEntryRequest entries = null;
        MethodExitRequest exits = null;
        MethodEntryRequest locals = null;
        List<String> lookups = new ArrayList<>();
        boolean done = false;
        vm.resume();
        while (!done) {
            EventSet set = vm.eventQueue().remove();
            for (Event e : set) {
                if (e instanceof ClassPrepareEvent p) {
                    Method walk = p.referenceType().methodsByName("walk").get(0);
                    BreakpointRequest at = requests.createBreakpointRequest(walk.location());
                    at.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
                    at.enable();
                } else if (e instanceof BreakpointEvent b) {
                    ThreadReference thread = b.thread();
                    other = (ObjectReference) thread.frame(0).getArgumentValues().get(1);
                    entries = requests.createMethodEntryRequest();
                    entries.addThreadFilter(thread);
                    entries.addClassFilter("dev.vantage.*");
                    entries.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
                    entries.enable();
                    locals = requests.createMethodEntryRequest();
                    locals.addThreadFilter(thread);
                    locals.addClassFilter("java.lang.ThreadLocal");
                    locals.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
                    locals.enable();
                    exits = requests.createMethodExitRequest();
                    exits.addThreadFilter(thread);
                    exits.addClassFilter("dev.vantage.*");
                    exits.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
                    exits.enable();
                } else if (e instanceof MethodEntryEvent m && m.request() == locals) {
                    String caller = m.thread().frame(1).location().declaringType().name();
                    if (m.method().name().equals("get") && caller.startsWith("dev.vantage.")
                            && !caller.startsWith("dev.vantage.profiler.dispatch.")) {
                        lookups.add("ThreadLocal.get from " + file(m.thread().frame(1).location().declaringType()));
                    }
                } else if (e instanceof MethodEntryEvent m) {
                    if (m.method().name().equals("walk")) {
                        continue;
                    }
                    if (m.method().name().equals("current")
                            && m.method().declaringType().name().equals("dev.vantage.profiler.dispatch.DispatchThread")) {
                        lookups.add("DispatchThread.current from "
                                + file(m.thread().frame(1).location().declaringType()));
                    }
                    StackFrame frame = m.thread().frame(0);
                    List<Value> arguments = arguments(frame);
                    boolean holds = handed(other, arguments);
                    String file = file(m.method().declaringType());
                    files.computeIfAbsent(module(m.method().declaringType().name()), k -> new LinkedHashSet<>())
                            .add(file);
                    String name = simpleName(m.method());
                    methods.add(name);
                    open.push(new Call(name, file, holds, arguments));
                    if (holds) {
                        stays.add(name);
                        trail.add("> " + name);
                    }
                } else if (e instanceof MethodExitEvent x) {
                    if (x.method().name().equals("walk")) {
                        entries.disable();
                        exits.disable();
                        locals.disable();
                        done = true;
                        continue;
                    }
                    Call call = open.pop();
                    if (call.holdsOther()) {
                        trail.add("< " + call.method() + (open.isEmpty() ? "" : " to " + open.peek().method()));
                    }
                    Value value = x.returnValue();
                    boolean returnsValue = !x.method().returnTypeName().equals("void");
                    if (call.holdsOther() && returnsValue) {
                        returns.add(call.method());
                    }
                    if (value instanceof ObjectReference r && call.arguments().contains(r)) {
                        needless.add(call.method());
                        needlessCalls++;
                    }
                }
            }
            set.resume();
        }
        vm.resume();
        int fileCount = files.values().stream().mapToInt(Set::size).sum();
        System.out.printf("files: %d in %d modules%n", fileCount, files.size());
        files.forEach((module, names) -> System.out.println("  " + module + ": " + String.join(", ", names)));
        Set<String> stayFiles = new LinkedHashSet<>();
        stays.forEach(s -> stayFiles.add(s.substring(0, s.indexOf('.'))));
        System.out.printf("following other: %d stays in %d files, %d returns%n", stays.size(), stayFiles.size(),
                returns.size());
        System.out.println("  stays: " + String.join(" ", stays));
        System.out.println("  returns: " + String.join(" ", returns));
        System.out.println("needless returns: " + needless.size() + (needless.isEmpty() ? ""
                : " (" + String.join(" ", needless) + ", " + needlessCalls + " calls)"));
        System.out.println("thread-state lookups: " + lookups.size() + (lookups.isEmpty() ? ""
                : " (" + String.join(", ", lookups) + ")"));
        if (List.of(args).contains("--methods")) {
            System.out.println("methods: " + String.join(" ", methods));
        }
        if (List.of(args).contains("--trail")) {
            trail.forEach(System.out::println);
        }
        vm.process().waitFor();
    }

    private static List<Value> arguments(StackFrame frame) {
        try {
            return frame.getArgumentValues();
        } catch (RuntimeException e) {
            return List.of();   // a native method
        }
    }

    private static boolean handed(ObjectReference other, List<Value> arguments) {
        for (Value v : arguments) {
            if (other.equals(v)) {
                return true;
            }
            if (v instanceof ArrayReference array && array.length() > 0 && array.getValues().contains(other)) {
                return true;
            }
        }
        return false;
    }

    /** The source file of a type: the top-level class it is nested in, lambdas included. */
    private static String file(ReferenceType type) {
        String name = type.name();
        int dollar = name.indexOf('$');
        String top = dollar < 0 ? name : name.substring(0, dollar);
        return top.substring(top.lastIndexOf('.') + 1) + ".java";
    }

    private static String simpleName(Method m) {
        return file(m.declaringType()).replace(".java", "") + "." + m.name();
    }

    /** The module a class comes from, by its package. */
    private static String module(String className) {
        String[][] modules = {
            {"dev.vantage.profiler.core.", "profiler-core"},
            {"dev.vantage.profiler.", "profiler-api"},
            {"dev.vantage.trace.engine.", "trace-engine"},
            {"dev.vantage.tensor.", "tensor"},
            {"dev.vantage.device.cpu.", "device-cpu"},
        };
        for (String[] m : modules) {
            if (className.startsWith(m[0])) {
                return m[1];
            }
        }
        return className.substring(0, className.lastIndexOf('.'));
    }

    private static void drain(InputStream in) {
        Thread t = new Thread(() -> {
            try {
                in.transferTo(System.err);
            } catch (java.io.IOException e) {
                // the walked JVM ended
            }
        });
        t.setDaemon(true);
        t.start();
    }

    /** The walked JVM: the CPU device, a recording profile, and the op. */
    public static final class Target {

        private Target() {
        }

        public static void main(String[] args) {
            boolean mem = List.of(args).contains("--mem");
            CpuHost host = CpuHost.open();
            Backends.install(host.backend(), "walk", "0");
            StandaloneProfiler core = new StandaloneProfiler(1_000_000L);
            core.addAllocator(host.allocator());
            Profile profile = core.profiler().profile()
                    .activities(mem ? Set.of(Activity.CPU, Activity.MEM) : Set.of(Activity.CPU)).start();
            Tensor a = Tensor.of(new float[] {1f, 2f}, 2);
            Tensor b = Tensor.of(new float[] {3f, 4f}, 2);
            for (int i = 0; i < 3; i++) {
                a.add(b).close();
            }
            Tensor c = walk(a, b);
            c.close();
            profile.stop();
            core.close();
            Backends.uninstallAll();
            host.close();
        }

        /** The walked op: {@code c = a.add(other)}. */
        static Tensor walk(Tensor a, Tensor other) {
            return a.add(other);
        }
    }
}
