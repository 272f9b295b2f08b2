package ${package}.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

import dev.vantage.device.kit.BackendSupport;
import dev.vantage.device.kit.emulation.DeviceMemory;
import dev.vantage.device.kit.emulation.EmulatedClock;
import dev.vantage.device.kit.emulation.EmulatedDevice;
import dev.vantage.device.kit.emulation.EmulatedDriver;
import dev.vantage.device.kit.emulation.EmulatedKernels;
import dev.vantage.device.kit.memory.CachingAllocator;
import dev.vantage.device.kit.memory.EmulatedHeap;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.spi.HostKernels;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.Storage;
import ${package}.driver.${deviceClass}Driver;

/**
 * The bundle's emulated ${deviceType} driver, labelled emulated wherever a user looks, and registered with a low
 * ranking so that a native driver replaces it. {@link EmulatedDriver} implements what every emulated device shares
 * (memory counters, the activity buffer, clocks, synchronisation); this class adds the device's facts and launches. Each device has its own memory, streams with a worker thread each
 * (kernels compute real results there, with the host backend's kernels over device memory), and a device clock
 * at 100 MHz that drifts from the host's, as real device clocks do.
 *
 * <p>Configuration (component properties, else system properties prefixed {@code vantage.${deviceType}.}):
 * {@code devices} (1), {@code streams} per device (2), {@code capacity.mib} per device (1024).
 */
@Component(service = ${deviceClass}Driver.class, property = "service.ranking:Integer=-100",
        configurationPid = "${package}")
public class Emulated${deviceClass}Driver extends EmulatedDriver implements ${deviceClass}Driver {

    static final long FREQUENCY = 100_000_000;
    static final double DRIFT_PPM = 20;

    /**
     * Creates a driver with the configuration of the component or the system properties; its kernels run the host
     * kernels of the {@link HostKernels} service (the CPU device bundle's), so without it the driver is not
     * offered and the platform says which reference is missing.
     */
    @Activate
    public Emulated${deviceClass}Driver(Map<String, Object> config, @Reference HostKernels host) {
        super(${deviceClass}Backend.TYPE, devices(config, host));
    }

    /** Creates a driver computing with the host backend installed in the runtime, for tests. */
    public Emulated${deviceClass}Driver(Map<String, Object> config) {
        this(config, HostKernels.installed());
    }

    private static List<EmulatedDevice> devices(Map<String, Object> config, HostKernels host) {
        int count = BackendSupport.positiveSetting(config, ${deviceClass}Backend.TYPE, "devices", 1);
        int streams = BackendSupport.positiveSetting(config, ${deviceClass}Backend.TYPE, "streams", 2);
        long capacity = (long) BackendSupport.positiveSetting(config, ${deviceClass}Backend.TYPE, "capacity.mib",
                1024) << 20;
        List<EmulatedDevice> devices = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Device d = new Device(${deviceClass}Backend.TYPE, i);
            devices.add(new EmulatedDevice(d, host, new EmulatedClock(FREQUENCY, DRIFT_PPM, 0x1_0000_0000L * (i + 1)),
                    new DeviceMemory(d, new CachingAllocator(d,
                            new EmulatedHeap(0x7a00_0000_0000L + ((long) i << 40), capacity))), streams));
        }
        return devices;
    }

    /** Stops every stream's worker; called when the component goes away. */
    @Deactivate
    @Override
    public void close() {
        super.close();
    }

    @Override
    public Map<String, String> properties(int device) {
        EmulatedDevice d = device(device);
        Map<String, String> p = new LinkedHashMap<>();
        p.put("name", "${deviceClass} device (emulated)");
        p.put("totalGlobalMem", Long.toString(d.memory().capacity()));
        p.put("memoryAlignment", Long.toString(CachingAllocator.MIN_BLOCK));
        p.put("streams", Integer.toString(d.streamCount()));
        p.put("clockFrequency", Long.toString(FREQUENCY));
        p.put("driver", "emulated");
        return p;
    }

    @Override
    public Storage malloc(int device, DType dtype, int n) {
        return device(device).allocate(dtype, n);
    }

    @Override
    public int streamCount(int device) {
        return device(device).streamCount();
    }

    @Override
    public void launchKernel(int device, int stream, String op, KernelCall call) {
        device(device).launch(stream, "${deviceType}LaunchKernel", EventKind.KERNEL, kernelName(op),
                Map.of("op", op), EmulatedKernels.reads(call), EmulatedKernels.writes(call),
                device(device).compute(op, call));
    }

    /** The kernel's name in traces: {@code aten::mm} runs as {@code ${deviceType}_mm}. */
    static String kernelName(String op) {
        int colon = op.lastIndexOf(':');
        return "${deviceType}_" + (colon < 0 ? op : op.substring(colon + 1));
    }

    @Override
    public void memcpyAsync(int device, int stream, KernelCall call) {
        device(device).copy(stream, "${deviceType}MemcpyAsync", call);
    }

    @Override
    public void memsetAsync(int device, int stream, KernelCall call) {
        device(device).launch(stream, "${deviceType}MemsetAsync", EventKind.GPU_MEMSET, "Memset (Device)",
                Map.of("bytes", EmulatedDevice.bytes(call.output(0))), EmulatedKernels.reads(call),
                EmulatedKernels.writes(call), device(device).compute(call.op(), call));
    }
}
