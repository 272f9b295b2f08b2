/**
 * Distributed training in the style of {@code torch.distributed}: a {@link dev.vantage.tensor.distributed.ProcessGroup}
 * of ranks that meet at a rendezvous and run collectives (all-reduce, broadcast, all-gather, reduce-scatter, barrier)
 * over a ring of TCP connections, and {@link dev.vantage.tensor.distributed.DistributedDataParallel}, which averages
 * gradients across ranks in buckets while backward runs.
 *
 * <p>A device bundle moves its tensors for collectives through a
 * {@link dev.vantage.tensor.distributed.CollectiveBackend}; the default copies them to the host. A profiler learns the
 * details of each collective (message sizes, group, dtype) from {@link dev.vantage.tensor.distributed.CollectiveEvents}.
 * See {@code docs/distributed.md}.
 */
@Export
@Version("1.2.0")
package dev.vantage.tensor.distributed;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
