package dev.vantage.workloads.internal;

import java.util.EnumSet;
import java.util.Set;

import org.osgi.service.component.annotations.Component;

import dev.vantage.tensor.Device;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.workload.RunFlag;
import dev.vantage.tensor.TensorScope;
import dev.vantage.tensor.workload.Workload;
import dev.vantage.tensor.workload.WorkloadContext;

/**
 * A loop of {@code matmul + add + sum} on 256x256 float32 matrices: the smallest workload with a realistic shape,
 * where matmul dominates and the elementwise op and the reduction are cheap. Prints the running checksum at the
 * end, so a broken kernel shows.
 */
@Component(service = Workload.class)
public class MatmulWorkload implements Workload {

    static final int SIZE = 256;

    @Override
    public String name() {
        return "matmul";
    }

    @Override
    public String description() {
        return "matmul + add + sum of 256x256 float32 matrices, once per step";
    }

    /** Its sizes are fixed: it takes none of the workload flags. */
    @Override
    public Set<RunFlag> flags() {
        return EnumSet.noneOf(RunFlag.class);
    }

    /** Runs on the host only: it measures the CPU device's matmul. */
    @Override
    public boolean supports(Device device) {
        return device.type().equals("cpu");
    }

    @Override
    public void run(WorkloadContext context) {
        if (!supports(context.device())) {
            throw new IllegalArgumentException("matmul runs on cpu only, not on " + context.device());
        }
        double checksum = 0;
        try (Tensor a = Tensor.randn(context.seed(), SIZE, SIZE);
                Tensor b = Tensor.randn(context.seed() + 1, SIZE, SIZE);
                Tensor bias = Tensor.randn(context.seed() + 2, SIZE, SIZE)) {
            for (int step = 0; step < context.steps(); step++) {
                try (TensorScope scope = TensorScope.open()) {
                    Tensor c = a.matmul(b).add(bias);
                    checksum += c.sum().item();
                }
                context.step();
            }
        }
        context.out().printf("matmul: %d steps, checksum %.4f%n", context.steps(), checksum);
    }
}
