package dev.vantage.verbs.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.util.tracker.ServiceTracker;

import dev.vantage.profiler.api.MemoryAdmin;
import dev.vantage.profiler.api.OnDemandProfiler;
import dev.vantage.profiler.api.Profiler;
import dev.vantage.profiler.spi.RunRegistry;
import dev.vantage.tensor.DeviceInfo;
import dev.vantage.tensor.Devices;
import dev.vantage.tensor.workload.Workload;

/** The running platform as the command line sees it. */
final class OsgiPlatform implements Platform {

    private final BundleContext context;
    private final Supplier<Profiler> profiler;
    private final Supplier<List<Workload>> workloads;
    // tracked, not looked up: a served workload asks for it at every step
    private final ServiceTracker<OnDemandProfiler, OnDemandProfiler> onDemand;
    private final ServiceTracker<MemoryAdmin, MemoryAdmin> memory;
    private final ServiceTracker<RunRegistry, RunRegistry> registry;

    OsgiPlatform(BundleContext context, Supplier<Profiler> profiler, Supplier<List<Workload>> workloads) {
        this.context = context;
        this.profiler = profiler;
        this.workloads = workloads;
        this.onDemand = new ServiceTracker<>(context, OnDemandProfiler.class, null);
        onDemand.open();
        this.memory = new ServiceTracker<>(context, MemoryAdmin.class, null);
        memory.open();
        this.registry = new ServiceTracker<>(context, RunRegistry.class, null);
        registry.open();
    }

    @Override
    public MemoryAdmin memory() {
        MemoryAdmin m = memory.getService();
        if (m == null) {
            throw new IllegalStateException("the memory service (bundle dev.vantage.profiler.core) is not running");
        }
        return m;
    }

    @Override
    public RunRegistry registry() {
        RunRegistry r = registry.getService();
        if (r == null) {
            throw new IllegalStateException("the run registry (bundle dev.vantage.exporter.files) is not running");
        }
        return r;
    }

    @Override
    public OnDemandProfiler onDemand() {
        return onDemand.getService();
    }

    @Override
    public String awaitBoard(long timeoutMillis) throws InterruptedException {
        // the board bundle announces itself by a property only: this bundle does not depend on it
        org.osgi.util.tracker.ServiceTracker<Object, Object> board;
        try {
            board = new org.osgi.util.tracker.ServiceTracker<>(context,
                    context.createFilter("(vantage.board.url=*)"), null);
        } catch (org.osgi.framework.InvalidSyntaxException e) {
            throw new IllegalStateException(e);
        }
        board.open();
        try {
            if (board.waitForService(timeoutMillis) == null) {
                return null;
            }
            return String.valueOf(board.getServiceReference().getProperty("vantage.board.url"));
        } finally {
            board.close();
        }
    }

    @Override
    public List<BundleRow> bundles() {
        List<BundleRow> rows = new ArrayList<>();
        for (Bundle b : context.getBundles()) {
            rows.add(new BundleRow(b.getBundleId(), String.valueOf(b.getSymbolicName()), b.getVersion().toString(),
                    state(b.getState())));
        }
        return rows;
    }

    static String state(int state) {
        return switch (state) {
            case Bundle.ACTIVE -> "ACTIVE";
            case Bundle.RESOLVED -> "RESOLVED";
            case Bundle.INSTALLED -> "INSTALLED";
            case Bundle.STARTING -> "STARTING";
            case Bundle.STOPPING -> "STOPPING";
            case Bundle.UNINSTALLED -> "UNINSTALLED";
            default -> "UNKNOWN(" + state + ")";
        };
    }

    @Override
    public List<DeviceInfo> devices() {
        return Devices.installed();
    }

    @Override
    public Profiler profiler() {
        Profiler p = profiler.get();
        if (p == null) {
            throw new IllegalStateException("the profiler service is not available right now");
        }
        return p;
    }

    @Override
    public Map<String, Workload> workloads() {
        Map<String, Workload> byName = new TreeMap<>();
        for (Workload w : workloads.get()) {
            byName.putIfAbsent(w.name(), w);
        }
        return byName;
    }
}
