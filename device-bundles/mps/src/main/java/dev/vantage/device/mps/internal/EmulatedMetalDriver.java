package dev.vantage.device.mps.internal;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

import dev.vantage.device.kit.ActivityRecord;
import dev.vantage.device.kit.BackendSupport;
import dev.vantage.device.kit.emulation.DeviceMemory;
import dev.vantage.device.kit.emulation.EmulatedClock;
import dev.vantage.device.kit.emulation.EmulatedDevice;
import dev.vantage.device.kit.emulation.EmulatedKernels;
import dev.vantage.device.kit.memory.BlockAllocator;
import dev.vantage.device.kit.memory.CachingAllocator;
import dev.vantage.device.kit.memory.EmulatedHeap;
import dev.vantage.device.mps.driver.CompletedCommandBuffer;
import dev.vantage.device.mps.driver.KernelPath;
import dev.vantage.device.mps.driver.MetalDriver;
import dev.vantage.device.mps.driver.MetalKernel;
import dev.vantage.device.mps.driver.MetalRecords;
import dev.vantage.device.mps.driver.SyncType;
import dev.vantage.profiler.api.MemoryStats;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.spi.HostKernels;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.Storage;

/**
 * The bundle's emulated Metal driver, registered with a low ranking so that a native driver replaces it. It drives
 * one Apple-GPU-like device: unified memory (default 16 GiB, of which the device recommends three quarters as its
 * working set; buffers from torch's caching allocator), a pool of streams (default 32) handed to threads,
 * command buffers that commit adaptively after a number of commands (default 16), and a clock like
 * {@code mach_absolute_time} on Apple silicon: 24 MHz, drifting 18 ppm slow against the host, from an arbitrary
 * count. Kernels compute real results with the host backend's kernels over the device's buffers.
 *
 * <p>Configuration (component properties, else system properties prefixed {@code vantage.mps.}): {@code streams}
 * (32), {@code capacity.mib} (16384), {@code commit.commands} (16).
 */
@Component(service = MetalDriver.class, property = "service.ranking:Integer=-100",
        configurationPid = "dev.vantage.device.mps")
public class EmulatedMetalDriver implements MetalDriver {

    static final long FREQUENCY = 24_000_000;
    static final double DRIFT_PPM = -18;
    static final long CLOCK_OFFSET = 0x3_1F00_0000L;
    static final int ALIGNMENT = (int) CachingAllocator.MIN_BLOCK;
    static final long HEAP = CachingAllocator.SMALL_BUFFER;
    static final long BASE_ADDRESS = 0x1_0a00_0000L;

    private final MetalDevice device;

    /**
     * Creates a driver computing with the host backend installed in the runtime, for use without a framework.
     *
     * @throws IllegalArgumentException if a setting is not a positive integer
     */
    public EmulatedMetalDriver(Map<String, Object> config) {
        this(config, HostKernels.installed());
    }

    /**
     * Creates a driver with the configuration of the component or the system properties; its kernels run the host
     * kernels of the {@link HostKernels} service, so without the host device bundle the driver is not offered.
     *
     * @throws IllegalArgumentException if a setting is not a positive integer
     */
    @Activate
    public EmulatedMetalDriver(Map<String, Object> config, @Reference HostKernels host) {
        int streams = BackendSupport.positiveSetting(config, "mps", "streams", 32);
        long capacity = (long) BackendSupport.positiveSetting(config, "mps", "capacity.mib", 16384) << 20;
        int commands = BackendSupport.positiveSetting(config, "mps", "commit.commands", 16);
        Device d = new Device(MpsBackend.TYPE, 0);
        EmulatedDevice emulated = new EmulatedDevice(d, host, new EmulatedClock(FREQUENCY, DRIFT_PPM, CLOCK_OFFSET),
                new DeviceMemory(d, new CachingAllocator(d, new EmulatedHeap(BASE_ADDRESS, capacity))), streams);
        this.device = new MetalDevice(emulated, commands, capacity / 4 * 3);
    }

    /** Commits what is open and stops every stream's worker; called when the component goes away. */
    @Deactivate
    public void close() {
        device.close();
    }

    /** Returns a device, for this package's tests. */
    MetalDevice device(int index) {
        if (index != 0) {
            throw new IllegalArgumentException("no mps device " + index + "; there is 1");
        }
        return device;
    }

    @Override
    public String deviceType() {
        return MpsBackend.TYPE;
    }

    @Override
    public int deviceCount() {
        return 1;
    }

    @Override
    public boolean emulated() {
        return true;
    }

    @Override
    public Map<String, String> properties(int index) {
        MetalDevice d = device(index);
        Map<String, String> p = new LinkedHashMap<>();
        p.put("name", "Apple GPU (emulated MPS)");
        p.put("hasUnifiedMemory", "true");
        p.put("totalUnifiedMemory", Long.toString(d.emulated().memory().capacity()));
        p.put("recommendedMaxWorkingSetSize", Long.toString(d.recommendedMaxMemory()));
        p.put("bufferAlignment", Integer.toString(ALIGNMENT));
        p.put("heapSize", Long.toString(HEAP));
        p.put("streams", Integer.toString(d.streamCount()));
        p.put("adaptiveCommitCommands", Integer.toString(d.adaptiveCommands()));
        p.put("clockFrequency", Long.toString(FREQUENCY));
        p.put("driver", "emulated");
        return p;
    }

    @Override
    public Storage newBuffer(int index, DType dtype, int n) {
        return device(index).emulated().allocate(dtype, n);
    }

    @Override
    public long currentAllocatedMemory(int index) {
        DeviceMemory memory = device(index).emulated().memory();
        return memory.capacity() - memory.free();
    }

    @Override
    public long driverAllocatedMemory(int index) {
        return device(index).emulated().memory().stats().values().get("reserved_bytes.all.current");
    }

    @Override
    public long recommendedMaxMemory(int index) {
        return device(index).recommendedMaxMemory();
    }

    @Override
    public MemoryStats memoryStats(int index) {
        MetalDevice d = device(index);
        MemoryStats base = d.emulated().memory().stats();
        Map<String, Long> v = new TreeMap<>(base.values());
        v.put("current_allocated_memory", v.get("allocated_bytes.all.current"));
        v.put("driver_allocated_memory", v.get("reserved_bytes.all.current"));
        v.put("recommended_max_memory", d.recommendedMaxMemory());
        return new MemoryStats(base.device(), v);
    }

    @Override
    public void resetPeakMemoryStats(int index) {
        device(index).emulated().memory().resetPeakStats();
    }

    @Override
    public void emptyCache(int index) {
        device(index).emulated().memory().emptyCache();
    }

    @Override
    public BlockAllocator allocator(int index) {
        return device(index).emulated().memory().allocator();
    }

    @Override
    public int streamCount(int index) {
        return device(index).streamCount();
    }

    @Override
    public int currentStream(int index) {
        return device(index).currentStream();
    }

    @Override
    public void encodeKernel(int index, int stream, MetalKernel kernel, KernelCall call, SyncType sync) {
        Map<String, String> args = Map.of("path", kernel.path().name(), "threads", Long.toString(kernel.threads()));
        String api = kernel.path() == KernelPath.GRAPH ? MetalRecords.ENCODE_GRAPH : MetalRecords.DISPATCH;
        device(index).encode(stream, api, EventKind.KERNEL, kernel.name(), args, EmulatedKernels.reads(call),
                EmulatedKernels.writes(call), device(index).emulated().compute(kernel.op(), call), sync);
    }

    @Override
    public void encodeCopy(int index, int stream, KernelCall call, SyncType sync) {
        device(index).copy(stream, call, sync);
    }

    @Override
    public void encodeFill(int index, int stream, KernelCall call, SyncType sync) {
        device(index).encode(stream, MetalRecords.BLIT_FILL, EventKind.GPU_MEMSET, "Memset (MPS)",
                Map.of("bytes", EmulatedDevice.bytes(call.output(0))), EmulatedKernels.reads(call),
                EmulatedKernels.writes(call), device(index).emulated().compute(call.op(), call), sync);
    }

    @Override
    public void commit(int index, int stream, SyncType sync) {
        device(index).commit(stream, sync);
    }

    @Override
    public int openCommands(int index, int stream) {
        return device(index).stream(stream).openCommands();
    }

    @Override
    public void addCompletedHandler(int index, Consumer<CompletedCommandBuffer> handler) {
        device(index).addHandler(handler);
    }

    @Override
    public void removeCompletedHandler(int index, Consumer<CompletedCommandBuffer> handler) {
        device(index).removeHandler(handler);
    }

    @Override
    public void enableActivity(long maxRecords) {
        device.emulated().enableActivity(maxRecords);
    }

    @Override
    public void disableActivity() {
        device.emulated().disableActivity();
    }

    @Override
    public List<ActivityRecord> flushActivity() {
        return device.emulated().flushActivity();
    }

    @Override
    public long droppedRecords() {
        return device.emulated().droppedRecords();
    }

    @Override
    public long externalCorrelation(int index) {
        return device(index).emulated().externalCorrelation();
    }

    @Override
    public void runCollective(int index, long externalCorrelation, String api, String name, Map<String, String> args,
            Runnable transfer) {
        device(index).runCollective(externalCorrelation, api, name, args, transfer);
    }

    @Override
    public void pushExternalCorrelation(long id) {
        device.emulated().pushExternalCorrelation(id);
    }

    @Override
    public void popExternalCorrelation() {
        device.emulated().popExternalCorrelation();
    }

    @Override
    public long deviceTimestamp(int index) {
        return device(index).clock().now();
    }

    @Override
    public long timestampFrequency(int index) {
        return device(index).clock().frequency();
    }

    @Override
    public boolean synchronizeDevice(int index, long timeoutNanos) {
        return device(index).synchronize(timeoutNanos);
    }
}
