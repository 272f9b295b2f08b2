package dev.vantage.device.npu.internal;

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
import dev.vantage.device.kit.memory.CachingAllocator;
import dev.vantage.device.kit.memory.EmulatedHeap;
import dev.vantage.device.kit.emulation.EmulatedClock;
import dev.vantage.device.kit.emulation.EmulatedDevice;
import dev.vantage.device.kit.emulation.EmulatedDriver;
import dev.vantage.device.kit.emulation.EmulatedKernels;
import dev.vantage.device.npu.driver.NpuDriver;
import dev.vantage.device.npu.driver.NpuKernel;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.spi.HostKernels;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.Storage;

/**
 * The bundle's emulated NPU driver, registered with a low ranking so that a vendor's native driver replaces it.
 * Each device has its own memory (default 8 GiB, under torch's caching allocator), streams with a
 * worker each, and a {@code syscnt}-like clock at 100 MHz that drifts 35 ppm from the host and starts at an
 * arbitrary count. Kernels compute real results with the host backend's kernels over device memory.
 *
 * <p>Configuration (component properties, else system properties prefixed {@code vantage.npu.}):
 * {@code devices} (1), {@code streams} per device (2), {@code capacity.mib} per device (8192).
 */
@Component(service = NpuDriver.class, property = "service.ranking:Integer=-100",
        configurationPid = "dev.vantage.device.npu")
public class EmulatedNpuDriver extends EmulatedDriver implements NpuDriver {

    static final long FREQUENCY = 100_000_000;
    static final double DRIFT_PPM = 35;
    static final int ALIGNMENT = (int) CachingAllocator.MIN_BLOCK;
    static final long PAGE = CachingAllocator.SMALL_BUFFER;

    /**
     * Creates a driver with the configuration of the component or the system properties; its kernels run the host
     * kernels of the {@link HostKernels} service, so without the host device bundle the driver is not offered.
     */
    @Activate
    public EmulatedNpuDriver(Map<String, Object> config, @Reference HostKernels host) {
        super(NpuBackend.TYPE, devices(config, host));
    }

    /** Creates a driver computing with the host backend installed in the runtime, for use without a framework. */
    public EmulatedNpuDriver(Map<String, Object> config) {
        this(config, HostKernels.installed());
    }

    private static List<EmulatedDevice> devices(Map<String, Object> config, HostKernels host) {
        int count = BackendSupport.positiveSetting(config, "npu", "devices", 1);
        int streams = BackendSupport.positiveSetting(config, "npu", "streams", 2);
        long capacity = (long) BackendSupport.positiveSetting(config, "npu", "capacity.mib", 8192) << 20;
        List<EmulatedDevice> devices = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            Device d = new Device(NpuBackend.TYPE, i);
            devices.add(new EmulatedDevice(d, host, new EmulatedClock(FREQUENCY, DRIFT_PPM, 0x2_0000_0000L * (i + 3)),
                    new DeviceMemory(d, new CachingAllocator(d,
                            new EmulatedHeap(0x1240_0000_0000L + ((long) i << 40), capacity))), streams));
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
        p.put("name", "Ascend-like NPU (emulated)");
        p.put("totalGlobalMem", Long.toString(d.memory().capacity()));
        p.put("aiCoreCount", Integer.toString(NpuOps.AI_CORES));
        p.put("vectorCoreCount", Integer.toString(NpuOps.VECTOR_CORES));
        p.put("memoryAlignment", Integer.toString(ALIGNMENT));
        p.put("memoryPageSize", Long.toString(PAGE));
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
    public void launchKernel(int device, int stream, NpuKernel kernel, KernelCall call) {
        Map<String, String> args = Map.of("Accelerator Core", kernel.type().name(), "Block Num",
                Integer.toString(kernel.blockDim()), "Type", kernel.opType());
        device(device).launch(stream, "aclrtLaunchKernel", EventKind.KERNEL, kernel.opType(), args,
                EmulatedKernels.reads(call), EmulatedKernels.writes(call),
                device(device).compute(kernel.op(), call));
    }

    @Override
    public void memcpyAsync(int device, int stream, KernelCall call) {
        device(device).copy(stream, "aclrtMemcpyAsync", call);
    }

    @Override
    public void memsetAsync(int device, int stream, KernelCall call) {
        device(device).launch(stream, "aclrtMemsetAsync", EventKind.GPU_MEMSET, "Memset (Device)",
                Map.of("bytes", EmulatedDevice.bytes(call.output(0))), EmulatedKernels.reads(call),
                EmulatedKernels.writes(call), device(device).compute(call.op(), call));
    }

    @Override
    public long externalCorrelation(int device) {
        return device(device).externalCorrelation();
    }

    /** Runs the transfer as an HCCL task on the device's communication stream (its last); see the kit. */
    @Override
    public void runCollective(int device, long externalCorrelation, String api, String name, Map<String, String> args,
            Runnable transfer) {
        device(device).runCollective(externalCorrelation, api, name, args, transfer);
    }
}
