package dev.vantage.trace.engine;

import java.util.Locale;
import java.util.Map;

/**
 * The one table of device types and communication names, for every reader, view and writer: which c10
 * {@code DeviceType} number a device type is written as (Kineto's {@code [memory]} {@code Device Type}), which device
 * type a number is read back as, which device kernels move data between ranks, and which host ops are collectives.
 * Vendor names stay where the trace formats need them: HCCL's {@code hcom_*} kernels (torch_npu), NCCL's and RCCL's
 * kernels (CUDA, ROCm), the {@code nccl:}/{@code gloo:} scopes of torch's process groups. Thread-safe: no state.
 */
public final class DeviceNames {

    /** c10's {@code DeviceType} numbers that traces carry. */
    public static final int CPU = 0;
    public static final int CUDA = 1;
    public static final int XPU = 12;
    public static final int MPS = 13;
    /** Out-of-tree accelerators (torch_npu's NPU, Spyre, a vendor's): {@code PrivateUse1}. */
    public static final int PRIVATE_USE_1 = 20;

    /** The argument torch copies a collective's name into, on its communication kernels. */
    public static final String COLLECTIVE_NAME = "Collective name";

    private DeviceNames() {
    }

    /**
     * Returns the c10 {@code DeviceType} number a device type is written as: {@code cpu} 0, {@code cuda} 1 (ROCm's
     * devices call themselves CUDA too), {@code xpu} 12, {@code mps} 13, any other accelerator {@code PrivateUse1} (20).
     */
    public static int c10Number(String deviceType) {
        return switch (deviceType.toLowerCase(Locale.ROOT)) {
            case "cpu" -> CPU;
            case "cuda", "hip" -> CUDA;
            case "xpu" -> XPU;
            case "mps" -> MPS;
            default -> PRIVATE_USE_1;
        };
    }

    /**
     * Returns the device type of a c10 number as read from a trace.
     *
     * @param privateUse1 what {@code PrivateUse1} is in this trace ({@code npu}, ...), from its device properties;
     *     {@code privateuse1} when it does not say
     */
    public static String deviceType(int c10Number, String privateUse1) {
        return switch (c10Number) {
            case CPU -> "cpu";
            case CUDA -> "cuda";
            case XPU -> "xpu";
            case MPS -> "mps";
            case PRIVATE_USE_1 -> privateUse1;
            default -> "device" + c10Number;
        };
    }

    /**
     * Returns whether device work of this name moves data between ranks rather than computing: HCCL's {@code hcom_*},
     * and NCCL's and RCCL's kernels ({@code ncclKernel_AllReduce_...}, {@code ncclDevKernel_...}, {@code nccl:all_reduce}).
     */
    public static boolean isCommunicationKernel(String name) {
        return name.startsWith("hcom_") || containsCcl(name);
    }

    /** Returns whether device work is communication: by its name, or because it carries a collective's name. */
    public static boolean isCommunication(String name, Map<String, String> args) {
        return isCommunicationKernel(name) || args.containsKey(COLLECTIVE_NAME);
    }

    /**
     * Returns whether a host op is a collective of torch's process groups: {@code record_param_comms}, or a backend's
     * scope ({@code nccl:all_reduce}, {@code gloo:broadcast}).
     */
    public static boolean isCollectiveOp(String name) {
        return name.startsWith("nccl:") || name.startsWith("gloo:") || name.equals("record_param_comms");
    }

    /**
     * Returns the collective a communication kernel names: {@code ncclKernel_AllReduce_RING_LL_Sum_float} and
     * {@code ncclDevKernel_AllGather_...} its second part, {@code hcom_allReduce__3_0_1} what follows the prefix;
     * {@code other} when it names none.
     */
    public static String collectiveOfKernel(String kernel) {
        String[] parts = kernel.split("[_(]");
        for (int i = 0; i + 1 < parts.length; i++) {
            if (parts[i].toLowerCase(Locale.ROOT).endsWith("kernel") && !parts[i + 1].isEmpty()) {
                return parts[i + 1];
            }
        }
        return kernel.startsWith("hcom_") ? kernel.substring(5) : "other";
    }

    /** c10d's spelling of a collective: lower case, without backend prefix, underscores or dashes. */
    public static String canonicalCollective(String collective) {
        String n = collective;
        int colon = n.indexOf(':');
        if (colon >= 0) {
            n = n.substring(colon + 1);
        }
        n = n.toLowerCase(Locale.ROOT).replace("_", "").replace("-", "");
        return n.isEmpty() ? "other" : n;
    }

    /**
     * Returns the bytes of one element of a dtype as torch names them in traces ({@code float}, {@code c10::Half},
     * {@code Float}); 0 for a name it does not know.
     */
    public static int elementSize(String dtype) {
        String t = dtype.toLowerCase(Locale.ROOT);
        if (t.startsWith("c10::")) {
            t = t.substring(5);
        }
        return switch (t) {
            case "double", "long int", "long", "int64", "complexfloat", "c10::complex<float>" -> 8;
            case "float", "int", "int32", "float32" -> 4;
            case "half", "bfloat16", "short", "int16", "float16" -> 2;
            case "bool", "char", "signed char", "unsigned char", "byte", "int8", "uint8", "float8_e4m3fn",
                    "float8_e5m2" -> 1;
            case "complexdouble", "c10::complex<double>" -> 16;
            default -> 0;
        };
    }

    /**
     * Whether "nccl" or "rccl" stands anywhere in the name, in any case: one pass, nothing allocated (a trace asks
     * this of every kernel). {@code c | 0x20} is a lower-case letter only for that letter and its upper case.
     */
    private static boolean containsCcl(String name) {
        for (int i = 0, last = name.length() - 4; i <= last; i++) {
            int c = name.charAt(i) | 0x20;
            if ((c == 'n' || c == 'r') && (name.charAt(i + 1) | 0x20) == 'c' && (name.charAt(i + 2) | 0x20) == 'c'
                    && (name.charAt(i + 3) | 0x20) == 'l') {
                return true;
            }
        }
        return false;
    }
}
