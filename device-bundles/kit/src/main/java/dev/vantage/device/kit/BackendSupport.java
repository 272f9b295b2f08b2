package dev.vantage.device.kit;

import java.util.Map;

import dev.vantage.tensor.Device;
import dev.vantage.tensor.spi.KernelCall;

/** What every accelerator backend asks of a call or a device, in one place. */
public final class BackendSupport {

    private BackendSupport() {
    }

    /**
     * Returns the index of the device a call runs on: that of its first tensor of the type, outputs first.
     *
     * @throws IllegalArgumentException if the call has no tensor of the type
     */
    public static int deviceOf(KernelCall call, String type) {
        for (int i = 0; i < call.outputCount(); i++) {
            if (call.output(i) != null && call.output(i).device().type().equals(type)) {
                return call.output(i).device().index();
            }
        }
        for (int i = 0; i < call.inputCount(); i++) {
            if (call.input(i) != null && call.input(i).device().type().equals(type)) {
                return call.input(i).device().index();
            }
        }
        throw new IllegalArgumentException(call.op() + " was dispatched to the " + type + " backend with no " + type
                + " tensor");
    }

    /**
     * Returns a device's index after checking it is one of a backend's.
     *
     * @throws IllegalArgumentException if the type differs or the index is not below the count
     */
    public static int index(Device device, String type, int count) {
        if (!device.type().equals(type) || device.index() >= count) {
            throw new IllegalArgumentException("the " + type + " backend has no device " + device + "; it has "
                    + count + " " + type + " device(s)");
        }
        return device.index();
    }

    /**
     * Reads a setting from a component's configuration, else from the system property {@code vantage.<type>.<key>}.
     *
     * @return the value, or null when neither has it
     */
    public static String setting(Map<String, ?> config, String type, String key) {
        Object v = config.get(key);
        if (v == null) {
            v = System.getProperty("vantage." + type + "." + key);
        }
        return v == null ? null : v.toString();
    }

    /**
     * Reads a positive integer setting; see {@link #setting}.
     *
     * @throws IllegalArgumentException if the value is not a positive integer; the message names the key and value
     */
    public static int positiveSetting(Map<String, ?> config, String type, String key, int fallback) {
        String v = setting(config, type, key);
        if (v == null) {
            return fallback;
        }
        try {
            int n = Integer.parseInt(v.trim());
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(type + " setting " + key + " must be a positive integer, not '" + v + "'");
    }
}
