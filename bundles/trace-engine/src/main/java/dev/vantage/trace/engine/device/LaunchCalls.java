package dev.vantage.trace.engine.device;

import java.util.Locale;
import java.util.Set;

/**
 * Which runtime calls launch device work, for the launch statistics and the queue length. HTA lists CUDA's, MTIA's
 * and ROCm's by name, one list per analysis; those lists are kept, so a CUDA trace gives HTA's figures. A call of
 * another runtime (Ascend's {@code aclrtLaunchKernel}, a vendor's through {@code PrivateUse1}, Vantage's emulated
 * devices) counts when work in the trace carries its correlation: every device records its launches that way, and
 * no list of names can know them all. A CUDA, driver or HIP call HTA does not list does not count (a synchronous
 * {@code cudaMemcpy}, {@code cudaGraphLaunch}).
 */
final class LaunchCalls {

    /** HTA's launch statistics' calls ({@code cuda_kernel_analysis}), and ROCm's, which HTA's list lacks there. */
    static final Set<String> LAUNCH_STATS = Set.of("cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync",
            "cudaMemsetAsync", "runFunction - job_prep_and_submit_for_execution", "hipLaunchKernel",
            "hipExtLaunchKernel", "hipModuleLaunchKernel", "hipExtModuleLaunchKernel", "hipMemcpyAsync",
            "hipMemsetAsync");

    /** HTA's queue-length calls ({@code TraceSymbolTable.get_runtime_launch_events_mask}). */
    static final Set<String> QUEUE = Set.of("cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel",
            "cuLaunchKernelEx", "cudaMemcpyAsync", "cudaMemsetAsync", "runFunction - job_prep_and_submit_for_execution",
            "hipLaunchKernel", "hipExtModuleLaunchKernel", "hipMemsetAsync", "hipMemcpyAsync", "hipMemcpyWithStream");

    private LaunchCalls() {
    }

    /** Whether a runtime call that work in the trace names by its correlation counts as launching it. */
    static boolean launches(String call, Set<String> listed) {
        if (listed.contains(call)) {
            return true;
        }
        String n = call.toLowerCase(Locale.ROOT);
        // the runtimes HTA knows, whose other calls it leaves out
        return !(n.startsWith("cu") || n.startsWith("hip") || n.startsWith("runfunction"));
    }
}
