package dev.vantage.device.kit.emulation;

import dev.vantage.device.kit.memory.MemoryBlock;

/**
 * A block of emulated device memory: the handle a device's storages carry
 * ({@link dev.vantage.tensor.spi.Storage#handle()}). It remembers the work that last wrote it, so that work on
 * another stream that touches it waits for that write first.
 */
public final class DeviceBlock {

    private final MemoryBlock block;
    private final long address;
    private final long bytes;
    private final long requested;
    private volatile Fence lastWrite;

    DeviceBlock(MemoryBlock block) {
        this.block = block;
        this.address = block.address();
        this.bytes = block.size();
        this.requested = block.requested();
    }

    /** Returns the allocator's block. */
    public MemoryBlock block() {
        return block;
    }

    /** Returns the device address. */
    public long address() {
        return address;
    }

    /** Returns the size the allocator handed out for the block, rounded as it rounds sizes. */
    public long bytes() {
        return bytes;
    }

    /** Returns the size that was asked for. */
    public long requested() {
        return requested;
    }

    /** Returns the work that last wrote the block, or null. */
    public Fence lastWrite() {
        return lastWrite;
    }

    /** Records the work that writes the block now. */
    public void written(Fence fence) {
        lastWrite = fence;
    }
}
