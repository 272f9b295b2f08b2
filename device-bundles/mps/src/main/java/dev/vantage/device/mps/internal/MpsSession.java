package dev.vantage.device.mps.internal;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

import dev.vantage.device.kit.DriverSession;
import dev.vantage.device.mps.driver.CompletedCommandBuffer;
import dev.vantage.device.mps.driver.MetalDriver;
import dev.vantage.device.mps.driver.SyncType;

/**
 * A {@link DriverSession} that also counts the command buffers the GPU finished while it recorded, through a
 * completed handler, as the MPS profiler reads GPU time from command-buffer completion: the trace metadata gets
 * {@code command_buffers}, {@code command_buffer_errors} and {@code command_buffer_gpu_time_ns} (the sum of each
 * buffer's GPU end minus start, at the nominal clock rate). Stopping commits the open command buffers before the
 * window closes, so that their commits are not counted as records outside it.
 */
final class MpsSession extends DriverSession {

    private final MetalDriver driver;
    private final AtomicLong buffers = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong gpuNanos = new AtomicLong();
    private final Consumer<CompletedCommandBuffer> handler = this::completed;
    private boolean listening;

    /** Creates a session; see {@link DriverSession#DriverSession}. */
    MpsSession(MetalDriver driver, Map<String, String> config) {
        super(driver, config);
        this.driver = driver;
    }

    @Override
    public synchronized void start() {
        if (!listening) {
            for (int d = 0; d < driver.deviceCount(); d++) {
                driver.addCompletedHandler(d, handler);
            }
            listening = true;
        }
        super.start();
    }

    /**
     * Commits every open command buffer first, so that the commits are recorded inside the profile's window, then
     * stops as {@link DriverSession#stop()} does.
     */
    @Override
    public synchronized void stop() {
        if (listening) {
            for (int d = 0; d < driver.deviceCount(); d++) {
                for (int s = 0; s < driver.streamCount(d); s++) {
                    driver.commit(d, s, SyncType.COMMIT);
                }
            }
        }
        super.stop();
        if (listening) {
            for (int d = 0; d < driver.deviceCount(); d++) {
                driver.removeCompletedHandler(d, handler);
            }
            listening = false;
        }
    }

    private void completed(CompletedCommandBuffer b) {
        buffers.incrementAndGet();
        if (!b.completed()) {
            errors.incrementAndGet();
        }
        long frequency = driver.timestampFrequency(b.device());
        gpuNanos.addAndGet(Math.round(b.gpuTicks() * 1e9 / frequency));
    }

    @Override
    protected Map<String, String> extraMetadata() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("command_buffers", Long.toString(buffers.get()));
        m.put("command_buffer_errors", Long.toString(errors.get()));
        m.put("command_buffer_gpu_time_ns", Long.toString(gpuNanos.get()));
        return m;
    }
}
