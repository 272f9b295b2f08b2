package dev.vantage.tensor;

import java.util.Objects;

/**
 * An installed device backend, as {@link Devices#installed()} lists it.
 *
 * @param type the device type tensors carry, such as {@code npu}
 * @param dispatchKey the key its kernels are selected by, under its display name (PrivateUse1 may be renamed)
 * @param emulated true when the device is emulated in software
 * @param bundle the symbolic name of the bundle that registered it
 * @param version that bundle's version
 */
public record DeviceInfo(String type, String dispatchKey, boolean emulated, String bundle, String version) {

    /** Checks the fields. */
    public DeviceInfo {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(dispatchKey, "dispatchKey");
        Objects.requireNonNull(bundle, "bundle");
        Objects.requireNonNull(version, "version");
    }
}
