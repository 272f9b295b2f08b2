package dev.vantage.device.spyre.internal;

import java.util.Locale;
import java.util.Map;

import dev.vantage.device.kit.BackendSupport;

/**
 * The emulated driver's settings: each from the component configuration, else from the system property
 * {@code vantage.spyre.<key>}, else its default.
 *
 * @param devices how many devices ({@code devices}, default 1)
 * @param streams streams per device ({@code streams}, default 4)
 * @param capacityBytes memory per device ({@code capacity.mib}, default 98304 MiB: 8 VF segments of 12 GiB)
 * @param tracingPresent whether the tracing library is installed ({@code tracing.library}: {@code present}, the
 *     default, or {@code absent})
 */
record SpyreSettings(int devices, int streams, long capacityBytes, boolean tracingPresent) {

    static final String PREFIX = "vantage.spyre.";
    static final String DEVICES = "devices";
    static final String STREAMS = "streams";
    static final String CAPACITY_MIB = "capacity.mib";
    static final String TRACING_LIBRARY = "tracing.library";

    /**
     * Reads the settings.
     *
     * @throws IllegalArgumentException if a value is malformed; the message names the key and the value
     */
    static SpyreSettings of(Map<String, ?> config) {
        int devices = BackendSupport.positiveSetting(config, "spyre", DEVICES, 1);
        int streams = BackendSupport.positiveSetting(config, "spyre", STREAMS, 4);
        long capacity = (long) BackendSupport.positiveSetting(config, "spyre", CAPACITY_MIB, 98_304) << 20;
        String library = BackendSupport.setting(config, "spyre", TRACING_LIBRARY);
        boolean present;
        if (library == null || library.trim().toLowerCase(Locale.ROOT).equals("present")) {
            present = true;
        } else if (library.trim().toLowerCase(Locale.ROOT).equals("absent")) {
            present = false;
        } else {
            throw new IllegalArgumentException("spyre setting " + TRACING_LIBRARY
                    + " must be 'present' or 'absent', not '" + library + "'");
        }
        return new SpyreSettings(devices, streams, capacity, present);
    }
}
