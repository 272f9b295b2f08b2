package dev.vantage.trace.engine;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import dev.vantage.profiler.spi.DeviceActivity;
import dev.vantage.profiler.trace.EventKind;
import dev.vantage.trace.engine.store.BlockSource;
import dev.vantage.trace.engine.store.Column;
import dev.vantage.trace.engine.store.Interner;

/**
 * A trace's device activities as columns: device work (kernels, copies, sets, communication), the runtime calls
 * that launched it, JVM pauses and a device's own memory reports, each with the host op that launched it as a
 * handle ({@link TraceData#handle}: the op's thread and row), once known. The recorder adds what its device
 * sessions delivered ({@link #add(DeviceActivity, String)}); a reader adds what a file holds and links it to ops when
 * it has read them ({@link #setOp}). Names, device types and argument maps are interned, so a million kernels of
 * twenty names cost twenty strings. Times are on the trace's clock. Not thread-safe.
 */
public final class DeviceRows {

    private final Column start;
    private final Column end;
    private final Column name;
    private final Column kind;
    private final Column type;
    private final Column index;
    private final Column stream;
    private final Column launchThread;
    private final Column flow;
    private final Column op;
    private final Column args;
    /** A memory report's address, bytes, allocated and reserved; null until the first report. */
    private Column[] memory;
    private final BlockSource source;
    private final Interner names = new Interner();
    private final List<Map<String, String>> argMaps = new java.util.ArrayList<>();
    private final Map<Map<String, String>, Integer> argIds = new HashMap<>();
    private int size;
    /**
     * Per interned name of a row, whether it names communication ({@link DeviceNames#isCommunicationKernel}): 0 not
     * asked (no row's name), 1 no, 2 yes. Asked once per name as rows are added, since every exporter and summary asks
     * it of every row.
     */
    private byte[] communicationName = new byte[64];

    /** Empty rows whose columns come from {@code source}. */
    public DeviceRows(BlockSource source) {
        this.source = source;
        start = Column.longs(source);
        end = Column.longs(source);
        name = Column.ints(source);
        kind = Column.bytes(source);
        type = Column.ints(source);
        index = Column.ints(source);
        stream = Column.longs(source);
        launchThread = Column.longs(source);
        flow = Column.longs(source);
        op = Column.longs(source);
        args = Column.ints(source);
    }

    /**
     * Adds an activity a device session delivered.
     *
     * @param deviceType the type of the device that delivered it ({@code npu}, ...)
     * @return its row
     */
    public int add(DeviceActivity a, String deviceType) {
        int row = add(a.kind(), a.name(), deviceType, a.deviceIndex(), a.streamId(), a.startNanos(), a.endNanos(),
                a.launchThreadId(), a.flowId(), a.correlationId(), a.args());
        if (a.memory() != null) {
            DeviceActivity.Memory m = a.memory();
            memory(row, m.address(), m.bytes(), m.totalAllocated(), m.totalReserved());
        }
        return row;
    }

    /**
     * Adds an activity.
     *
     * @param opHandle the launching op's handle, or -1 when not known (yet)
     * @param activityArgs the device's own facts about it; empty for none
     * @return its row
     */
    public int add(EventKind activityKind, String activityName, String deviceType, int deviceIndex, long streamId,
            long startNanos, long endNanos, long launchThreadId, long flowId, long opHandle,
            Map<String, String> activityArgs) {
        start.append(startNanos);
        end.append(endNanos);
        int nameId = names.intern(activityName);
        name.append(nameId);
        if (nameId >= communicationName.length) {
            communicationName = Arrays.copyOf(communicationName, Math.max(nameId + 1, communicationName.length * 2));
        }
        if (communicationName[nameId] == 0) {
            communicationName[nameId] = (byte) (DeviceNames.isCommunicationKernel(activityName) ? 2 : 1);
        }
        kind.append(activityKind.id());
        type.append(names.intern(deviceType));
        index.append(deviceIndex);
        stream.append(streamId);
        launchThread.append(launchThreadId);
        flow.append(flowId);
        op.append(opHandle);
        args.append(argsId(activityArgs));
        if (memory != null) {
            for (Column c : memory) {
                c.append(0);
            }
        }
        return size++;
    }

    private int argsId(Map<String, String> m) {
        if (m == null || m.isEmpty()) {
            return -1;
        }
        Integer id = argIds.get(m);
        if (id == null) {
            id = argMaps.size();
            Map<String, String> copy = Map.copyOf(m);
            argMaps.add(copy);
            argIds.put(copy, id);
        }
        return id;
    }

    /** Sets the figures of a memory report at a row. */
    public void memory(int row, long address, long bytes, long totalAllocated, long totalReserved) {
        if (memory == null) {
            memory = new Column[4];
            for (int c = 0; c < 4; c++) {
                memory[c] = Column.longs(source, size, 0);
            }
        }
        memory[0].set(row, address);
        memory[1].set(row, bytes);
        memory[2].set(row, totalAllocated);
        memory[3].set(row, totalReserved);
    }

    /** Sets the op that launched the activity at a row. */
    public void setOp(int row, long opHandle) {
        op.set(row, opHandle);
    }

    /** Sets the device type of a row. */
    public void setDeviceType(int row, String deviceType) {
        type.set(row, names.intern(deviceType));
    }

    public int size() {
        return size;
    }

    public long start(int i) {
        return start.getLong(i);
    }

    public long end(int i) {
        return end.getLong(i);
    }

    public long duration(int i) {
        return end.getLong(i) - start.getLong(i);
    }

    public String name(int i) {
        return names.get(name.getInt(i));
    }

    /** The interned id of the row's name, for grouping by name without a string. */
    public int nameId(int i) {
        return name.getInt(i);
    }

    /** The name of an id {@link #nameId} gave. */
    public String nameOf(int id) {
        return names.get(id);
    }

    public EventKind kind(int i) {
        return EventKind.ofId((int) kind.get(i));
    }

    public String deviceType(int i) {
        return names.get(type.getInt(i));
    }

    public int deviceIndex(int i) {
        return index.getInt(i);
    }

    public long streamId(int i) {
        return stream.getLong(i);
    }

    public long launchThreadId(int i) {
        return launchThread.getLong(i);
    }

    public long flowId(int i) {
        return flow.getLong(i);
    }

    /** The launching op's handle, or -1. */
    public long op(int i) {
        return op.getLong(i);
    }

    /**
     * Whether the row is communication by the engine's one rule ({@link DeviceNames#isCommunication}: its name, or a
     * {@code Collective name} among its arguments).
     */
    public boolean isCommunication(int i) {
        return communicationName[name.getInt(i)] == 2 || args(i).containsKey(DeviceNames.COLLECTIVE_NAME);
    }

    /** The interned id of the row's arguments, -1 for none: rows with equal arguments have one id. */
    public int argsId(int i) {
        return args.getInt(i);
    }

    public Map<String, String> args(int i) {
        int id = args.getInt(i);
        return id < 0 ? Map.of() : argMaps.get(id);
    }

    /**
     * A device's fact about the work of a row read as a number ({@code blocks per SM}, {@code est. achieved
     * occupancy %}), or {@code NaN} when the row has no such argument or it is not a number.
     */
    public double number(int i, String arg) {
        String text = args(i).get(arg);
        if (text == null) {
            return Double.NaN;
        }
        try {
            return Double.parseDouble(text.strip());
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    public long memoryAddress(int i) {
        return memory == null ? 0 : memory[0].getLong(i);
    }

    public long memoryBytes(int i) {
        return memory == null ? 0 : memory[1].getLong(i);
    }

    public long memoryTotalAllocated(int i) {
        return memory == null ? 0 : memory[2].getLong(i);
    }

    public long memoryTotalReserved(int i) {
        return memory == null ? 0 : memory[3].getLong(i);
    }
}
