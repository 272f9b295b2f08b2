package dev.vantage.device.spyre.internal;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import org.junit.rules.ExternalResource;

/**
 * What several tests need: the bundle's log records, the emulated streams' worker threads and drivers closed after
 * each test.
 */
final class TestSupport {

    private TestSupport() {
    }

    /** Counts the live worker threads of a Spyre device's streams, named after them. */
    static int streamThreads(int device) {
        String prefix = "vantage-spyre" + device + "-stream-";
        int n = 0;
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.isAlive() && t.getName().startsWith(prefix)) {
                n++;
            }
        }
        return n;
    }

    /** A rule that opens emulated drivers for a test and closes each of them after it, however it ends. */
    static final class Drivers extends ExternalResource {

        private final List<EmulatedSpyreDriver> opened = new ArrayList<>();

        /** Returns a new driver with these settings, to be closed after the test. */
        EmulatedSpyreDriver open(Map<String, Object> settings) {
            EmulatedSpyreDriver driver = new EmulatedSpyreDriver(settings);
            opened.add(driver);
            return driver;
        }

        @Override
        protected void after() {
            for (EmulatedSpyreDriver driver : opened) {
                driver.close();
            }
            opened.clear();
        }
    }

    /** Collects the records the bundle logs at INFO and above while it is attached. */
    static final class Log extends Handler implements AutoCloseable {

        private final Logger logger = Logger.getLogger("dev.vantage.device.spyre");
        private final List<LogRecord> records = new ArrayList<>();

        Log() {
            setLevel(Level.ALL);
            logger.addHandler(this);
        }

        @Override
        public synchronized void publish(LogRecord record) {
            records.add(record);
        }

        /** Returns the messages logged at a level. */
        synchronized List<String> messages(Level level) {
            List<String> out = new ArrayList<>();
            for (LogRecord r : records) {
                if (r.getLevel().equals(level)) {
                    out.add(r.getMessage());
                }
            }
            return out;
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
            logger.removeHandler(this);
        }
    }
}
