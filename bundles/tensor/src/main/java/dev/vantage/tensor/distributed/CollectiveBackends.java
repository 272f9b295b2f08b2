package dev.vantage.tensor.distributed;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

import dev.vantage.tensor.Device;
import dev.vantage.tensor.GradMode;
import dev.vantage.tensor.Tensor;

/**
 * The {@link CollectiveBackend} of each device type. Inside the platform the runtime installs every
 * {@code CollectiveBackend} service as it arrives; a device's unit tests may install one directly. A device type
 * without one gets the default, which stages through host copies and is named {@code gloo} for {@code cpu},
 * {@code hccl} for {@code npu} (an emulated NPU's memory is on the host, so the socket ring serves it as HCCL would)
 * and {@code <type>:gloo} for any other type ({@code spyre:gloo}, {@code mps:gloo}).
 */
public final class CollectiveBackends {

    private static final Map<String, CollectiveBackend> INSTALLED = new ConcurrentHashMap<>();

    private CollectiveBackends() {
    }

    /**
     * Installs a backend for its device type.
     *
     * @throws IllegalStateException if another backend serves that type; the message names it
     */
    public static void install(CollectiveBackend backend) {
        Objects.requireNonNull(backend, "backend");
        CollectiveBackend old = INSTALLED.putIfAbsent(backend.deviceType(), backend);
        if (old != null && old != backend) {
            throw new IllegalStateException("collective backend " + old.name() + " already serves device type "
                    + backend.deviceType());
        }
    }

    /** Removes a backend; does nothing if it is not installed. */
    public static void uninstall(CollectiveBackend backend) {
        INSTALLED.remove(Objects.requireNonNull(backend, "backend").deviceType(), backend);
    }

    /** Returns the backend of a device type: the installed one, or the default host-staging one. */
    public static CollectiveBackend forDevice(String deviceType) {
        Objects.requireNonNull(deviceType, "deviceType");
        CollectiveBackend b = INSTALLED.get(deviceType);
        return b != null ? b : new HostStaging(deviceType);
    }

    /** Returns the name the default backend of a device type has. */
    static String defaultName(String deviceType) {
        return switch (deviceType) {
            case "cpu" -> "gloo";
            case "npu" -> "hccl";
            default -> deviceType + ":gloo";
        };
    }

    /**
     * Stages a tensor for the host ring as the default backend does: the tensor itself when it is a contiguous host
     * tensor, else a contiguous host copy. For a backend whose device memory the host can copy.
     */
    public static Tensor stageToHost(Tensor t) {
        if (t.device().equals(Device.CPU) && t.isContiguous()) {
            return t;
        }
        try (GradMode.Scope off = GradMode.disabled()) {
            return t.detach().to(Device.CPU).contiguous();
        }
    }

    /** Writes a collective's result back from what {@link #stageToHost} returned; nothing when it was {@code t}. */
    public static void stageFromHost(Tensor host, Tensor t) {
        if (host != t) {
            try (GradMode.Scope off = GradMode.disabled()) {
                t.detach().copy_(host);
            }
        }
    }

    /** The default: a host tensor is used in place when contiguous; anything else is copied there and back. */
    private record HostStaging(String deviceType) implements CollectiveBackend {

        @Override
        public String name() {
            return defaultName(deviceType);
        }

        @Override
        public Tensor toHost(Tensor t) {
            return stageToHost(t);
        }

        @Override
        public void fromHost(Tensor host, Tensor t) {
            stageFromHost(host, t);
        }
    }
}
