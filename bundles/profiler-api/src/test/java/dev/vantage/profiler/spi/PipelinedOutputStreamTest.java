package dev.vantage.profiler.spi;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.Test;

public class PipelinedOutputStreamTest {

    /** A target that keeps what it is given and remembers flushes and closing. */
    private static class Recording extends OutputStream {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        volatile int flushes;
        volatile boolean closed;

        @Override
        public synchronized void write(int b) {
            bytes.write(b);
        }

        @Override
        public synchronized void write(byte[] b, int off, int len) {
            bytes.write(b, off, len);
        }

        @Override
        public void flush() {
            flushes++;
        }

        @Override
        public void close() {
            closed = true;
        }

        synchronized byte[] received() {
            return bytes.toByteArray();
        }
    }

    @Test
    public void everyByteArrivesInOrderAcrossChunkBoundaries() throws IOException {
        Recording target = new Recording();
        ByteArrayOutputStream expected = new ByteArrayOutputStream();
        Random random = new Random(42);
        try (PipelinedOutputStream pipe = new PipelinedOutputStream(target, 7, 2, "test-pipe")) {
            for (int i = 0; i < 2_000; i++) {
                if (random.nextInt(3) == 0) {
                    int b = random.nextInt(256);
                    pipe.write(b);
                    expected.write(b);
                } else {
                    byte[] run = new byte[random.nextInt(40)];
                    random.nextBytes(run);
                    int off = run.length == 0 ? 0 : random.nextInt(run.length);
                    pipe.write(run, off, run.length - off);
                    expected.write(run, off, run.length - off);
                }
            }
        }
        assertArrayEquals(expected.toByteArray(), target.received());
        assertTrue("close closes the target", target.closed);
    }

    @Test
    public void flushReturnsOnlyOnceTheTargetHasEverythingAndIsFlushed() throws IOException {
        Recording target = new Recording();
        try (PipelinedOutputStream pipe = new PipelinedOutputStream(target, 16, 3, "test-pipe")) {
            byte[] part = "a partial chunk, then more than one chunk".getBytes();
            pipe.write(part);
            pipe.flush();
            assertArrayEquals(part, target.received());
            assertEquals(1, target.flushes);
            pipe.write('!');
            pipe.flush();
            assertEquals(part.length + 1, target.received().length);
            assertEquals(2, target.flushes);
        }
    }

    @Test
    public void aFailingTargetIsReportedToTheWriterInsteadOfHangingIt() throws IOException {
        OutputStream broken = new OutputStream() {
            private int writes;

            @Override
            public void write(int b) throws IOException {
                write(new byte[] {(byte) b}, 0, 1);
            }

            @Override
            public void write(byte[] b, int off, int len) throws IOException {
                if (++writes == 3) {
                    throw new IOException("No space left on device");
                }
            }
        };
        PipelinedOutputStream pipe = new PipelinedOutputStream(broken, 64, 2, "test-pipe");
        IOException e = assertThrows(IOException.class, () -> {
            try (pipe) {
                for (int i = 0; i < 100_000; i++) {
                    pipe.write(new byte[10]);
                }
            }
        });
        assertTrue(e.getMessage(), e.getMessage().contains("No space left on device"));
        assertThrows(IOException.class, () -> pipe.write(1));
    }

    @Test
    public void aWriterThatOutpacesTheTargetWaitsWithAtMostAllChunksFull() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Recording target = new Recording() {
            @Override
            public synchronized void write(byte[] b, int off, int len) {
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                super.write(b, off, len);
            }
        };
        int chunk = 100;
        int chunks = 3;
        AtomicLong accepted = new AtomicLong();
        PipelinedOutputStream pipe = new PipelinedOutputStream(target, chunk, chunks, "test-pipe");
        Thread producer = new Thread(() -> {
            try (pipe) {
                for (int i = 0; i < 10 * chunk; i++) {
                    pipe.write(i);
                    accepted.incrementAndGet();
                }
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        });
        producer.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (producer.getState() != Thread.State.WAITING || accepted.get() < (long) chunk * chunks) {
            assertTrue("the producer never blocked; accepted " + accepted.get(), System.nanoTime() < deadline);
            Thread.onSpinWait();
        }
        assertEquals("bytes buffered while the target is stuck", (long) chunk * chunks, accepted.get());
        release.countDown();
        producer.join();
        byte[] received = target.received();
        assertEquals(10 * chunk, received.length);
        for (int i = 0; i < received.length; i++) {
            assertEquals((byte) i, received[i]);
        }
    }
}
