package dev.vantage.trace.engine;

import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

/** Which device work is communication, by the names NCCL, RCCL and HCCL give their kernels. */
public class DeviceNamesTest {

    @Test
    public void communicationKernelsAreFoundAnywhereInTheNameInAnyCase() {
        for (String name : new String[] {"ncclKernel_AllReduce_RING_LL_Sum_float", "ncclDevKernel_AllGather_RING_LL",
                "nccl:all_reduce", "void rcclKernel<2>(ncclWork*)", "hcom_allReduce__3_0_1",
                "void at::native::NCCL_wrapper()", "RcclGenericKernel", "xNcCl"}) {
            assertTrue(name, DeviceNames.isCommunicationKernel(name));
        }
        for (String name : new String[] {"", "ncc", "n", "volta_sgemm_128x64_nn", "hcom", "nc_cl",
                "void at::native::vectorized_elementwise_kernel<4>"}) {
            assertFalse(name, DeviceNames.isCommunicationKernel(name));
        }
    }
}
