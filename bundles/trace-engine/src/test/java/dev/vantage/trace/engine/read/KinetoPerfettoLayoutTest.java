package dev.vantage.trace.engine.read;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.TemporaryFolder;

import dev.vantage.perfetto.format.proto.DebugAnnotation;
import dev.vantage.perfetto.format.proto.ProcessDescriptor;
import dev.vantage.perfetto.format.proto.ThreadDescriptor;
import dev.vantage.perfetto.format.proto.Trace;
import dev.vantage.perfetto.format.proto.TracePacket;
import dev.vantage.perfetto.format.proto.TrackDescriptor;
import dev.vantage.perfetto.format.proto.TrackEvent;
import dev.vantage.trace.engine.summary.TraceSummary;
import dev.vantage.trace.engine.summary.OpStats;
import dev.vantage.trace.engine.summary.KernelStats;

/**
 * A {@code .pftrace} laid out as libkineto's PerfettoTraceBuilder wrote it (kineto#1191, until it left the open
 * repository at {@code fe0f5dd8}): a process track "Kineto Trace", a thread track per (device, resource) with a
 * child track per slice, no categories, the activity's args as JSON text in a {@code metadata} annotation, its id
 * in {@code correlation_id}, and the trace's metadata as {@code trace_metadata} / {@code device_properties}
 * instants. Built here with the generated classes, as no real file of that writer was available.
 */
public class KinetoPerfettoLayoutTest {

    @Rule
    public TemporaryFolder tmp = new TemporaryFolder();

    private static final long T0 = 1_700_000_000_000_000_000L;
    private long uuid = 100;
    private final Trace.Builder trace = Trace.newBuilder();

    private long track(TrackDescriptor.Builder d) {
        long id = uuid++;
        trace.addPacket(TracePacket.newBuilder().setTrustedPacketSequenceId(1).setTrackDescriptor(d.setUuid(id)));
        return id;
    }

    private static DebugAnnotation.Builder annotation(String name, String value) {
        return DebugAnnotation.newBuilder().setName(name).setStringValue(value);
    }

    /** One activity: a child track of its thread track, a begin with its annotations and an end. */
    private void slice(long thread, String name, long start, long duration, String metadata, long correlationId) {
        long child = track(TrackDescriptor.newBuilder().setParentUuid(thread).setName("row"));
        TrackEvent.Builder begin = TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_SLICE_BEGIN).setName(name)
                .setTrackUuid(child);
        if (metadata != null) {
            begin.addDebugAnnotations(annotation("metadata", metadata));
        }
        if (correlationId != 0) {
            begin.addDebugAnnotations(DebugAnnotation.newBuilder().setName("correlation_id").setIntValue(correlationId));
        }
        trace.addPacket(TracePacket.newBuilder().setTrustedPacketSequenceId(2).setTimestamp(T0 + start)
                .setTrackEvent(begin));
        trace.addPacket(TracePacket.newBuilder().setTrustedPacketSequenceId(2).setTimestamp(T0 + start + duration)
                .setTrackEvent(TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_SLICE_END).setTrackUuid(child)));
    }

    @Test
    public void theBuildersSlicesAreReadAsKinetosActivities() throws Exception {
        long process = track(TrackDescriptor.newBuilder().setName("Kineto Trace")
                .setProcess(ProcessDescriptor.newBuilder().setPid(0).setProcessName("Kineto Trace")));
        trace.addPacket(TracePacket.newBuilder().setTrustedPacketSequenceId(2).setTimestamp(T0)
                .setTrackEvent(TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_INSTANT).setName("trace_metadata")
                        .setTrackUuid(process)
                        .addDebugAnnotations(annotation("distributedInfo",
                                "{\"backend\": \"nccl\", \"rank\": 3, \"world_size\": 8}"))));
        trace.addPacket(TracePacket.newBuilder().setTrustedPacketSequenceId(2).setTimestamp(T0)
                .setTrackEvent(TrackEvent.newBuilder().setType(TrackEvent.Type.TYPE_INSTANT)
                        .setName("device_properties").setTrackUuid(process)
                        .addDebugAnnotations(annotation("properties", "{\"id\": 0, \"name\": \"NVIDIA A100\"}"))));
        long gpu = track(TrackDescriptor.newBuilder().setName("GPU 0 [GPU]").setParentUuid(process)
                .setProcess(ProcessDescriptor.newBuilder().setPid(0).setProcessName("GPU 0")));
        long host = track(TrackDescriptor.newBuilder().setName("python").setParentUuid(process)
                .setThread(ThreadDescriptor.newBuilder().setPid(4242).setTid(4242).setThreadName("python")));
        long stream = track(TrackDescriptor.newBuilder().setName("stream 7").setParentUuid(gpu)
                .setThread(ThreadDescriptor.newBuilder().setPid(0).setTid(7).setThreadName("stream 7")));
        slice(host, "ProfilerStep#4", 0, 100_000, null, 1);
        slice(host, "aten::mm", 10_000, 50_000, "\"Sequence number\": 9, \"Input Dims\": [[8, 16], [16, 4]]", 2);
        slice(host, "cudaLaunchKernel", 20_000, 5_000, "\"cbid\": 211, \"correlation\": 77", 77);
        slice(stream, "sgemm_128x64_nn", 30_000, 20_000,
                "\"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": 7, \"correlation\": 77, "
                        + "\"grid\": [4, 1, 1], \"block\": [128, 1, 1]", 77);
        slice(stream, "Memcpy HtoD (Pageable -> Device)", 60_000, 4_000,
                "\"device\": 0, \"context\": 1, \"stream\": 7, \"correlation\": 78", 78);
        Path file = tmp.getRoot().toPath().resolve("kineto.pftrace");
        try (OutputStream out = Files.newOutputStream(file)) {
            trace.build().writeTo(out);
        }

        TraceSummary s = TraceReader.summary(file);
        assertEquals("perfetto", s.format());
        assertEquals(3, s.rank());
        assertEquals(8, s.worldSize());
        assertEquals(1, s.steps().size());
        assertEquals(4, s.steps().get(0).step());
        OpStats mm = s.ops().stream().filter(o -> o.name().equals("aten::mm")).findFirst().orElseThrow();
        assertEquals("the kernel through its launch's correlation, the launch by its thread and time", 20_000,
                mm.deviceSelfNanos());
        assertEquals("its runtime call is not its own time", 45_000, mm.selfNanos());
        assertEquals(List.of("sgemm_128x64_nn", "Memcpy HtoD (Pageable -> Device)"),
                s.kernels().stream().map(KernelStats::name).toList());
        assertTrue(s.opsByShape().stream().anyMatch(o -> o.inputShapes().equals("[[8, 16], [16, 4]]")));
        assertEquals("grid [4,1,1] block [128,1,1]", s.kernelLaunches().get(0).geometry());
    }
}
