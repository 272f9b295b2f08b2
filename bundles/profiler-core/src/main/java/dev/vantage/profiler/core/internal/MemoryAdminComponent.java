package dev.vantage.profiler.core.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

import dev.vantage.profiler.api.MemoryAdmin;
import dev.vantage.profiler.api.MemorySnapshot;
import dev.vantage.profiler.api.MemoryStats;
import dev.vantage.profiler.spi.MemoryAllocator;
import dev.vantage.profiler.spi.ViewExporter;

/**
 * The {@link MemoryAdmin} service: torch's device-memory functions over the installed allocators, bound as a dynamic
 * whiteboard so that a device bundle may come and go. Snapshot files are written by the installed
 * {@link ViewExporter}; this component writes no file itself.
 */
@Component(service = MemoryAdmin.class)
public class MemoryAdminComponent implements MemoryAdmin {

    private final List<MemoryAllocator> allocators = new CopyOnWriteArrayList<>();
    private final DeviceMemories memories = new DeviceMemories(allocators);

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile ViewExporter views;

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addAllocator(MemoryAllocator allocator) {
        allocators.add(allocator);
    }

    void removeAllocator(MemoryAllocator allocator) {
        allocators.remove(allocator);
    }

    /** For tests that run without a framework: the view exporter to write snapshots with. */
    void setViews(ViewExporter exporter) {
        this.views = exporter;
    }

    @Override
    public List<String> devices() {
        return memories.devices();
    }

    @Override
    public MemoryStats memoryStats(String device) {
        return memories.stats(device);
    }

    @Override
    public long memoryCapacity(String device) {
        return memories.find(device).capacity();
    }

    @Override
    public void resetPeakMemoryStats(String device) {
        memories.find(device).resetPeakStats();
    }

    @Override
    public void resetAccumulatedMemoryStats(String device) {
        memories.find(device).resetAccumulatedStats();
    }

    @Override
    public String memorySummary(String device, boolean abbreviated) {
        return memories.summary(device, abbreviated);
    }

    @Override
    public void emptyCache(String device) {
        memories.find(device).emptyCache();
    }

    @Override
    public void limitMemory(String device, long bytes) {
        memories.limit(device, bytes);
    }

    @Override
    public void recordMemoryHistory(String deviceType, int maxEntries, boolean stacks) {
        memories.recordHistory(deviceType, maxEntries, stacks);
    }

    @Override
    public MemorySnapshot memorySnapshot(String deviceType) {
        return memories.snapshot(deviceType);
    }

    @Override
    public void dumpMemorySnapshot(String deviceType, Path file) throws IOException {
        Objects.requireNonNull(file, "file");
        MemorySnapshot snapshot = memories.snapshot(deviceType);
        views().exportMemorySnapshot(snapshot, file);
    }

    @Override
    public String dumpMemorySnapshotAndSummary(String deviceType, Path file, String device, boolean abbreviated)
            throws IOException {
        Objects.requireNonNull(file, "file");
        DeviceMemories.Pair pair = memories.snapshotAndSummary(deviceType, device, abbreviated);
        views().exportMemorySnapshot(pair.snapshot(), file);
        return pair.summary();
    }

    private ViewExporter views() {
        ViewExporter v = views;
        if (v == null) {
            throw new IllegalStateException("no view exporter is installed (bundle dev.vantage.exporter.files"
                    + " writes memory snapshots)");
        }
        return v;
    }
}
