package dev.vantage.tensor;

import java.util.List;

import dev.vantage.tensor.internal.Dispatcher;

/** What devices the runtime can run on now. */
public final class Devices {

    private Devices() {
    }

    /** Returns the installed device backends, sorted by device type; a snapshot. */
    public static List<DeviceInfo> installed() {
        return Dispatcher.installedDevices();
    }
}
