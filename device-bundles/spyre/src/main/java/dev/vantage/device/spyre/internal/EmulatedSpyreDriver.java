package dev.vantage.device.spyre.internal;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

import dev.vantage.device.kit.emulation.EmulatedDevice;
import dev.vantage.device.kit.emulation.EmulatedKernels;
import dev.vantage.device.kit.memory.BlockAllocator;
import dev.vantage.device.spyre.driver.SpyreDriver;
import dev.vantage.device.spyre.driver.SpyreKernel;
import dev.vantage.device.spyre.driver.SpyreTracing;
import dev.vantage.device.spyre.driver.SpyreTracingUnavailableException;
import dev.vantage.profiler.api.MemoryStats;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.Device;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.spi.HostKernels;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.KernelOps;
import dev.vantage.tensor.spi.Storage;

/**
 * The bundle's emulated Spyre driver, registered with a low ranking so that a vendor's native driver replaces it.
 * Each device ("card") has its own memory (default 96 GiB, split into 8 VF segments that its
 * {@link VfBlockAllocator} reserves at initialisation and hands out in 128-byte multiples), streams with a worker
 * each (default 4), and a clock at 1 GHz that drifts -20 ppm from the host and starts at an arbitrary count.
 * Kernels compute real results with the host backend's kernels over device memory; fills are done by the driver
 * itself.
 *
 * <p>Creating the driver does no device work. A card initialises at its first allocation or launch: it builds
 * its VF segment table and allocator and starts its streams' workers, logs {@code spyre:N initialised in X ms}
 * once, and, if a profile is recording, leaves one {@code aiuInitDevice} runtime record. The tracing library
 * ({@link EmulatedAiupti}) is created at the first {@link #tracing()} call, or never when configured absent.
 *
 * <p>Configuration (component properties, else system properties prefixed {@code vantage.spyre.}):
 * {@code devices} (1), {@code streams} per device (4), {@code capacity.mib} per device (98304),
 * {@code tracing.library} ({@code present} or {@code absent}; present).
 */
@Component(service = SpyreDriver.class, property = "service.ranking:Integer=-100",
        configurationPid = "dev.vantage.device.spyre")
public class EmulatedSpyreDriver implements SpyreDriver {

    static final String TYPE = "spyre";
    static final String API_INIT = "aiuInitDevice";
    static final String API_LAUNCH = "aiuLaunchComputeStream";
    static final String API_HTOD = "aiuDataTransferHtoD";
    static final String API_DTOH = "aiuDataTransferDtoH";
    static final String API_DTOD = "aiuDataTransferDtoD";
    static final String API_MEMSET = "aiuMemset";

    private static final System.Logger LOG = System.getLogger("dev.vantage.device.spyre");

    private final SpyreSettings settings;
    private final List<SpyreCard> cards;
    private final Object lock = new Object();
    private final ThreadLocal<int[]> currentStreams;
    private volatile EmulatedAiupti tracing;
    private SpyreTracingUnavailableException tracingFailure;
    private volatile boolean closed;

    /**
     * Creates a driver computing with the host backend installed in the runtime, for use without a framework.
     *
     * @throws IllegalArgumentException if a setting is malformed; the message names the key and the value
     */
    public EmulatedSpyreDriver(Map<String, Object> config) {
        this(config, HostKernels.installed());
    }

    /**
     * Creates a driver with the configuration of the component or the system properties; initialises no device.
     * Its kernels run the host kernels of the {@link HostKernels} service, so without the host device bundle the
     * driver is not offered.
     *
     * @throws IllegalArgumentException if a setting is malformed; the message names the key and the value
     */
    @Activate
    public EmulatedSpyreDriver(Map<String, Object> config, @Reference HostKernels host) {
        this.settings = SpyreSettings.of(config);
        List<SpyreCard> list = new ArrayList<>(settings.devices());
        for (int i = 0; i < settings.devices(); i++) {
            list.add(new SpyreCard(new Device(TYPE, i), host, settings.streams(), settings.capacityBytes()));
        }
        this.cards = List.copyOf(list);
        int count = settings.devices();
        this.currentStreams = ThreadLocal.withInitial(() -> new int[count]);
    }

    /** Stops every initialised card's stream workers; called when the component goes away. Later use fails. */
    @Deactivate
    public void close() {
        synchronized (lock) {
            closed = true;
        }
        for (SpyreCard c : cards) {
            c.close();
        }
    }

    // ---------------------------------------------------------------- devices and lazy initialisation

    private SpyreCard card(int index) {
        return SpyreCard.of(cards, index);
    }

    /** Returns a card's device, initialising the card at its first use. */
    private EmulatedDevice device(int index) {
        SpyreCard card = card(index);
        EmulatedDevice d = card.emulated();
        if (d != null) {
            return d;
        }
        synchronized (lock) {
            d = card.emulated();
            return d != null ? d : bringUp(card);
        }
    }

    /** Initialises a card; called with the lock held, so that recording cannot switch on or off meanwhile. */
    private EmulatedDevice bringUp(SpyreCard card) {
        if (closed) {
            throw new IllegalStateException("the spyre driver was closed; " + card.device() + " cannot initialise");
        }
        long start = System.nanoTime();
        EmulatedDevice d = card.bringUp();
        long end = System.nanoTime();
        EmulatedAiupti t = tracing;
        if (t != null && t.arm(d)) {
            boolean pushed = t.pushOnto(d);
            try {
                d.recordRuntime(API_INIT, d.stream(0).id(), start, end, d.nextCorrelation(), Map.of(
                        "streams", Integer.toString(card.streams()),
                        "vf_segments", Integer.toString(card.segments().segments().size()),
                        "segment_bytes", Long.toString(card.segments().segmentSize())));
            } finally {
                if (pushed) {
                    d.popExternalCorrelation();
                }
            }
        }
        card.publish(d);
        LOG.log(Level.INFO, () -> String.format("%s initialised in %.3f ms (%d streams, %d VF segments of %d bytes)",
                card.device(), (end - start) / 1e6, card.streams(), card.segments().segments().size(),
                card.segments().segmentSize()));
        return d;
    }

    @Override
    public boolean initialized(int device) {
        return card(device).emulated() != null;
    }

    @Override
    public void initialize(int device) {
        device(device);
    }

    @Override
    public String deviceType() {
        return TYPE;
    }

    @Override
    public int deviceCount() {
        return cards.size();
    }

    @Override
    public boolean emulated() {
        return true;
    }

    @Override
    public Map<String, String> properties(int device) {
        SpyreCard c = card(device);
        Map<String, String> p = new LinkedHashMap<>();
        p.put("name", "IBM Spyre-like AIU (emulated)");
        p.put("totalGlobalMem", Long.toString(c.capacity()));
        p.put("memoryAlignment", Integer.toString(SpyreCard.ALIGNMENT));
        p.put("vfSegments", Integer.toString(VfSegmentTable.SEGMENTS));
        p.put("segmentSize", Long.toString(VfSegmentTable.segmentSize(c.capacity(), SpyreCard.ALIGNMENT)));
        p.put("streams", Integer.toString(c.streams()));
        p.put("clockFrequency", Long.toString(SpyreCard.FREQUENCY));
        p.put("dispatchKey", "PrivateUse1");
        p.put("driver", "emulated");
        return p;
    }

    // ---------------------------------------------------------------- memory

    @Override
    public Storage malloc(int device, DType dtype, int n) {
        return device(device).allocate(dtype, n);
    }

    @Override
    public MemoryStats memoryStats(int device) {
        return card(device).stats();
    }

    @Override
    public void resetPeakMemoryStats(int device) {
        EmulatedDevice d = card(device).emulated();
        if (d != null) {
            d.memory().resetPeakStats();
        }
    }

    /**
     * Returns a card's {@link VfBlockAllocator}, initialising the card if it has not yet: the allocator is the
     * card's memory, which exists once its segments are reserved, as torch initialises a device to cap or record
     * its memory. Reading counters ({@link #memoryStats}) does not initialise it.
     *
     * @throws IllegalArgumentException if there is no such device
     * @throws IllegalStateException if the driver was closed before the card initialised
     */
    @Override
    public BlockAllocator allocator(int device) {
        return device(device).memory().allocator();
    }

    // ---------------------------------------------------------------- streams

    @Override
    public int streamCount(int device) {
        return card(device).streams();
    }

    @Override
    public int currentStream(int device) {
        card(device);
        return currentStreams.get()[device];
    }

    @Override
    public void setCurrentStream(int device, int stream) {
        SpyreCard c = card(device);
        if (stream < 0 || stream >= c.streams()) {
            throw new IllegalArgumentException(c.device() + " has no stream " + stream + "; it has " + c.streams());
        }
        currentStreams.get()[device] = stream;
    }

    @Override
    public boolean synchronizeDevice(int device, long timeoutNanos) {
        EmulatedDevice d = card(device).emulated();
        return d == null || d.synchronize(timeoutNanos);
    }

    // ---------------------------------------------------------------- launches

    @Override
    public void launchCompute(int device, int stream, SpyreKernel kernel, KernelCall call) {
        EmulatedDevice d = device(device);
        Runnable body = d.compute(kernel.op(), call);
        launch(d, stream, kernel, EmulatedKernels.reads(call), EmulatedKernels.writes(call), body);
    }

    /**
     * Launches a kernel whose work is given directly rather than computed by the host's kernel of its op; the
     * path {@link #launchCompute} takes, for tests that have no host backend.
     */
    void launchBody(int device, int stream, SpyreKernel kernel, Tensor[] reads, Tensor[] writes, Runnable body) {
        launch(device(device), stream, kernel, reads, writes, body);
    }

    private void launch(EmulatedDevice d, int stream, SpyreKernel kernel, Tensor[] reads, Tensor[] writes,
            Runnable body) {
        Map<String, String> args = Map.of("provenance_key", kernel.provenanceKey(), "op", kernel.op());
        boolean pushed = pushExternal(d);
        try {
            d.launch(stream, API_LAUNCH, EventKind.KERNEL, kernel.name(), args, reads, writes, body);
        } finally {
            popExternal(d, pushed);
        }
    }

    @Override
    public void memcpyAsync(int device, int stream, KernelCall call) {
        if (!KernelOps.COPY_.equals(call.op())) {
            throw new IllegalArgumentException("memcpyAsync copies as " + KernelOps.COPY_ + ", not " + call.op());
        }
        EmulatedDevice d = device(device);
        boolean toHost = call.input(0).device().equals(Device.CPU);
        boolean fromHost = call.input(1).device().equals(Device.CPU);
        String api = toHost ? API_DTOH : fromHost ? API_HTOD : API_DTOD;
        boolean pushed = pushExternal(d);
        try {
            d.copy(stream, api, call);
        } finally {
            popExternal(d, pushed);
        }
    }

    @Override
    public void memsetAsync(int device, int stream, KernelCall call) {
        boolean zero = KernelOps.ZERO_.equals(call.op());
        if (!zero && !KernelOps.FILL_.equals(call.op())) {
            throw new IllegalArgumentException("memsetAsync fills as " + KernelOps.ZERO_ + " or " + KernelOps.FILL_
                    + ", not " + call.op());
        }
        EmulatedDevice d = device(device);
        Tensor self = call.output(0);
        double value = zero ? 0 : call.scalar(0);
        boolean pushed = pushExternal(d);
        try {
            d.launch(stream, API_MEMSET, EventKind.GPU_MEMSET, "Memset (Device)",
                    Map.of("bytes", EmulatedDevice.bytes(self)), EmulatedKernels.reads(call),
                    EmulatedKernels.writes(call), () -> DeviceFill.fill(self, value));
        } finally {
            popExternal(d, pushed);
        }
    }

    /** Runs the transfer as communication work on the card's last stream; see the kit's emulated device. */
    @Override
    public void runCollective(int device, long externalCorrelation, String api, String name, Map<String, String> args,
            Runnable transfer) {
        device(device).runCollective(externalCorrelation, api, name, args, transfer);
    }

    private boolean pushExternal(EmulatedDevice d) {
        EmulatedAiupti t = tracing;
        return t != null && t.pushOnto(d);
    }

    private static void popExternal(EmulatedDevice d, boolean pushed) {
        if (pushed) {
            d.popExternalCorrelation();
        }
    }

    // ---------------------------------------------------------------- tracing library

    @Override
    public SpyreTracing tracing() {
        EmulatedAiupti t = tracing;
        if (t != null) {
            return t;
        }
        synchronized (lock) {
            if (tracing != null) {
                return tracing;
            }
            if (tracingFailure == null) {
                if (settings.tracingPresent()) {
                    tracing = new EmulatedAiupti(cards, lock);
                    LOG.log(Level.DEBUG, () -> tracing.description() + " loaded for the first profile");
                    return tracing;
                }
                tracingFailure = new SpyreTracingUnavailableException(EmulatedAiupti.LIBRARY,
                        "it is not installed; the emulated driver is configured with " + SpyreSettings.PREFIX
                                + SpyreSettings.TRACING_LIBRARY + "=absent");
            }
            throw new SpyreTracingUnavailableException(tracingFailure.library(), tracingFailure.reason());
        }
    }

    @Override
    public boolean tracingLoaded() {
        return tracing != null;
    }
}
