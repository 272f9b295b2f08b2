package dev.vantage.tensor.internal;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.After;
import org.junit.Before;
import org.junit.Test;

import dev.vantage.profiler.spi.CallKind;
import dev.vantage.profiler.spi.Dispatch;
import dev.vantage.profiler.spi.DispatchHook;
import dev.vantage.profiler.spi.OpCall;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.DispatchKey;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.Backend;
import dev.vantage.tensor.spi.FloatStorage;
import dev.vantage.tensor.spi.KernelRegistry;

public class DispatcherTest {

    /** A backend whose add adds and whose sum counts elements, enough to see which kernel ran. */
    private final Backend fake = new Backend() {
        @Override
        public String deviceType() {
            return "cpu";
        }

        @Override
        public DispatchKey dispatchKey() {
            return DispatchKey.CPU;
        }

        @Override
        public boolean emulated() {
            return true;
        }

        @Override
        public void registerKernels(KernelRegistry registry) {
            registry.binary("aten::add", (a, b) -> {
                float[] x = a.storage().array();
                float[] y = b.storage().array();
                float[] out = new float[x.length];
                for (int i = 0; i < out.length; i++) {
                    out[i] = x[i] + y[i];
                }
                return Tensor.of(new FloatStorage(out), a.shape());
            });
            registry.unary("aten::sum", a -> Tensor.of(new float[] {a.numel()}));
        }
    };

    private Object token;
    private final List<String> calls = new ArrayList<>();

    @Before
    public void install() {
        Dispatcher.install(fake, "test.bundle", "1.2.3");
        token = Dispatch.claim((hook, error) -> calls.add("failure " + error.getMessage()));
    }

    @After
    public void uninstall() {
        Dispatch.release(token);
        Dispatcher.uninstallAll();
    }

    @Test
    public void dispatchesToTheRegisteredKernelWithoutHooks() {
        Tensor sum = Tensor.of(new float[] {1, 2}, 2).add(Tensor.of(new float[] {10, 20}, 2));
        assertArrayEquals(new float[] {11, 22}, sum.toArray(), 0f);
        assertEquals(2f, sum.sum().item(), 0f);
        assertEquals("cpu", Dispatcher.installedDevices().get(0).type());
        assertEquals("test.bundle", Dispatcher.installedDevices().get(0).bundle());
    }

    @Test
    public void hooksSeeTheOpItsKeyAndInputShapesAroundTheKernel() {
        Dispatch.publish(token, new DispatchHook[] {new DispatchHook() {
            @Override
            public long onEnter(OpCall call) {
                calls.add("enter " + call.name() + " " + call.kind() + " " + call.dispatchKey() + " "
                        + java.util.Arrays.toString(call.inputShape(0)) + " " + call.inputType(0) + " "
                        + call.inputCount());
                return 42;
            }

            @Override
            public void onExit(OpCall call, long handle) {
                calls.add("exit " + call.name() + " " + handle);
            }
        }});
        Tensor.of(new float[6], 2, 3).sum();
        assertEquals(List.of("enter aten::sum OP CPU [2, 3] float 1", "exit aten::sum 42"), calls);
    }

    @Test
    public void theHookExitRunsWhenTheKernelThrows() {
        Dispatch.publish(token, new DispatchHook[] {new DispatchHook() {
            @Override
            public long onEnter(OpCall call) {
                calls.add("enter");
                return 0;
            }

            @Override
            public void onExit(OpCall call, long handle) {
                calls.add("exit");
            }
        }});
        // the fake add indexes past the shorter input
        Tensor a = Tensor.of(new float[3], 3);
        Tensor b = Tensor.of(new float[1], 1);
        assertThrows(ArrayIndexOutOfBoundsException.class, () -> a.add(b));
        assertEquals(List.of("enter", "exit"), calls);
    }

    @Test
    public void anOpWithoutKernelOrDeviceIsAClearError() {
        IllegalStateException noKernel = assertThrows(IllegalStateException.class,
                () -> Tensor.of(new float[1], 1).mul(Tensor.of(new float[1], 1)));
        assertEquals("aten::mul has no kernel for device cpu:0; installed device backends: [cpu]",
                noKernel.getMessage());
        Dispatcher.uninstallAll();
        IllegalStateException noBackend = assertThrows(IllegalStateException.class,
                () -> Tensor.of(new float[1], 1).sum());
        assertTrue(noBackend.getMessage(), noBackend.getMessage().endsWith("installed device backends: []"));
    }

    @Test
    public void aSecondBackendForATakenKeyIsRefused() {
        Backend other = new Backend() {
            @Override
            public String deviceType() {
                return "other";
            }

            @Override
            public DispatchKey dispatchKey() {
                return DispatchKey.CPU;
            }

            @Override
            public boolean emulated() {
                return false;
            }

            @Override
            public void registerKernels(KernelRegistry registry) {
            }
        };
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> Dispatcher.install(other, "b", "1"));
        assertEquals("dispatch key CPU is taken by the cpu backend; the other backend was not installed",
                e.getMessage());
    }

    @Test
    public void tensorsCheckTheirShapesAndDevices() {
        IllegalArgumentException shape = assertThrows(IllegalArgumentException.class,
                () -> Tensor.of(new float[5], 2, 3));
        assertEquals("shape [2, 3] holds 6 values, not 5", shape.getMessage());
        assertEquals(new Device("npu", 1), Device.parse("npu:1"));
        IllegalArgumentException device = assertThrows(IllegalArgumentException.class,
                () -> Device.parse("npu:x"));
        assertTrue(device.getMessage().contains("'npu:x'"));
        assertEquals(CallKind.OP, CallKind.valueOf("OP"));
    }
}
