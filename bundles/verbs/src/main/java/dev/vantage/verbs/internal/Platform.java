package dev.vantage.verbs.internal;

import java.util.List;
import java.util.Map;

import dev.vantage.profiler.api.MemoryAdmin;
import dev.vantage.profiler.api.OnDemandProfiler;
import dev.vantage.profiler.api.Profiler;
import dev.vantage.profiler.spi.RunRegistry;
import dev.vantage.tensor.DeviceInfo;
import dev.vantage.tensor.workload.Workload;

/** What the command line reads from the running platform; an interface so that verbs can be tested without it. */
interface Platform {

    /** One installed bundle. */
    record BundleRow(long id, String symbolicName, String version, String state) {
    }

    /** Returns every installed bundle, by id. */
    List<BundleRow> bundles();

    /** Returns the installed device backends. */
    List<DeviceInfo> devices();

    /** Returns the profiler service. */
    Profiler profiler();

    /** Returns the registered workloads by name, sorted. */
    Map<String, Workload> workloads();

    /**
     * Waits for the board (the board bundle's server, once the HTTP service listens) and returns the URL to open.
     *
     * @param timeoutMillis how long to wait
     * @return the URL, or null when no board came up in time (the distribution has no board)
     * @throws InterruptedException if interrupted while waiting
     */
    default String awaitBoard(long timeoutMillis) throws InterruptedException {
        return null;
    }

    /**
     * Returns the device-memory service.
     *
     * @throws IllegalStateException if it is not running
     */
    default MemoryAdmin memory() {
        throw new IllegalStateException("the memory service is not available");
    }

    /**
     * Returns the run registry.
     *
     * @throws IllegalStateException if it is not running
     */
    default RunRegistry registry() {
        throw new IllegalStateException("the run registry is not available");
    }

    /** Returns the on-demand profiler, or null while the profiler core is not running. */
    default OnDemandProfiler onDemand() {
        return null;
    }

    /** Marks a step of a workload on the on-demand profiler, when the profiler core runs. */
    default void markStep() {
        OnDemandProfiler onDemand = onDemand();
        if (onDemand != null) {
            onDemand.step();
        }
    }
}
