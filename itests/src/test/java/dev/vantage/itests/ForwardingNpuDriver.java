package dev.vantage.itests;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import dev.vantage.device.kit.ActivityRecord;
import dev.vantage.device.npu.driver.NpuDriver;
import dev.vantage.device.npu.driver.NpuKernel;
import dev.vantage.profiler.api.MemoryStats;
import dev.vantage.tensor.DType;
import dev.vantage.tensor.spi.KernelCall;
import dev.vantage.tensor.spi.Storage;

/**
 * A second NPU driver for driver-swap tests: it forwards every call to the emulated driver it wraps, so its
 * kernels compute real results and record real activity, and counts the kernels launched through it. It says it
 * is emulated, since it is.
 */
final class ForwardingNpuDriver implements NpuDriver {

    final AtomicInteger launches = new AtomicInteger();
    private final NpuDriver inner;

    ForwardingNpuDriver(NpuDriver inner) {
        this.inner = inner;
    }

    @Override
    public MemoryStats memoryStats(int device) {
        return inner.memoryStats(device);
    }

    @Override
    public void resetPeakMemoryStats(int device) {
        inner.resetPeakMemoryStats(device);
    }

    @Override
    public String deviceType() {
        return inner.deviceType();
    }

    @Override
    public int deviceCount() {
        return inner.deviceCount();
    }

    @Override
    public boolean emulated() {
        return true;
    }

    @Override
    public Map<String, String> properties(int device) {
        return inner.properties(device);
    }

    @Override
    public void enableActivity(long maxRecords) {
        inner.enableActivity(maxRecords);
    }

    @Override
    public void disableActivity() {
        inner.disableActivity();
    }

    @Override
    public List<ActivityRecord> flushActivity() {
        return inner.flushActivity();
    }

    @Override
    public long droppedRecords() {
        return inner.droppedRecords();
    }

    @Override
    public void pushExternalCorrelation(long id) {
        inner.pushExternalCorrelation(id);
    }

    @Override
    public void popExternalCorrelation() {
        inner.popExternalCorrelation();
    }

    @Override
    public long deviceTimestamp(int device) {
        return inner.deviceTimestamp(device);
    }

    @Override
    public long timestampFrequency(int device) {
        return inner.timestampFrequency(device);
    }

    @Override
    public boolean synchronizeDevice(int device, long timeoutNanos) {
        return inner.synchronizeDevice(device, timeoutNanos);
    }

    @Override
    public Storage malloc(int device, DType dtype, int n) {
        return inner.malloc(device, dtype, n);
    }

    @Override
    public int streamCount(int device) {
        return inner.streamCount(device);
    }

    @Override
    public void launchKernel(int device, int stream, NpuKernel kernel, KernelCall call) {
        launches.incrementAndGet();
        inner.launchKernel(device, stream, kernel, call);
    }

    @Override
    public void memcpyAsync(int device, int stream, KernelCall call) {
        inner.memcpyAsync(device, stream, call);
    }

    @Override
    public void memsetAsync(int device, int stream, KernelCall call) {
        inner.memsetAsync(device, stream, call);
    }
}
