package dev.vantage.trace.engine.device;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The tables the device analyses print, by name, in the order {@code vantage analyze} prints them, each with its
 * columns (HTA's names where HTA has the analysis): one list for the verbs that give them from trace files and for the
 * SQL that gives them from Parquet folders.
 */
public final class DeviceTables {

    private static final Map<String, List<String>> COLUMNS = new LinkedHashMap<>();

    static {
        COLUMNS.put("temporal", Temporal.COLUMNS);
        COLUMNS.put("kernel_types", KernelBreakdown.TYPE_COLUMNS);
        COLUMNS.put("kernels", KernelBreakdown.KERNEL_COLUMNS);
        COLUMNS.put("launch_summary", Launches.SUMMARY_COLUMNS);
        COLUMNS.put("launch", Launches.COLUMNS);
        COLUMNS.put("idle", IdleTime.COLUMNS);
        COLUMNS.put("queue_length_summary", QueueLength.SUMMARY_COLUMNS);
        COLUMNS.put("queue_length", QueueLength.COLUMNS);
        COLUMNS.put("memory_bw_summary", Bandwidth.SUMMARY_COLUMNS);
        COLUMNS.put("memory_bw", Bandwidth.COLUMNS);
        COLUMNS.put("sequences", Sequences.COLUMNS);
        COLUMNS.put("critical_path_summary", CriticalPath.SUMMARY_COLUMNS);
        COLUMNS.put("critical_path", CriticalPath.COLUMNS);
        COLUMNS.put("gpu", GpuMetrics.COLUMNS);
        COLUMNS.put("advice", Advice.COLUMNS);
    }

    private DeviceTables() {
    }

    /** Returns the tables' names, in the order {@code vantage analyze} prints them. */
    public static List<String> names() {
        return List.copyOf(COLUMNS.keySet());
    }

    /** Returns whether a device analysis prints a table of this name. */
    public static boolean has(String table) {
        return COLUMNS.containsKey(table);
    }

    /**
     * Returns a table's columns.
     *
     * @throws IllegalArgumentException if no device analysis prints a table of that name
     */
    public static List<String> columns(String table) {
        List<String> columns = COLUMNS.get(table);
        if (columns == null) {
            throw new IllegalArgumentException("no device analysis table '" + table + "'; known: " + COLUMNS.keySet());
        }
        return columns;
    }
}
