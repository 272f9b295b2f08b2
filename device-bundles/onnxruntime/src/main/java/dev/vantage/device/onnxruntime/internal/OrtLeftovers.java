package dev.vantage.device.onnxruntime.internal;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * Removes what loading ONNX Runtime leaves in the temporary directory, which ONNX Runtime 1.29.0 gives no setting
 * for: the folder {@code onnxruntime-java<random>} its Java loader extracts the native libraries into (left behind,
 * empty, by every process), and the empty debug log {@code mat-debug-<pid>.log} its telemetry library opens in
 * {@code /tmp} when the environment is made. Both are removed as soon as the environment exists: the libraries are
 * loaded by then (a loaded library's file may go on Linux and macOS; where it may not, the folder stays for ONNX
 * Runtime's own removal at exit), and the log is never written (ONNX Runtime's telemetry is turned off). Only this
 * process's own leftovers are touched: the folder ONNX Runtime recorded, the log of this process id.
 */
final class OrtLeftovers {

    private OrtLeftovers() {
    }

    /** Removes the leftovers of this process's ONNX Runtime; what cannot be removed stays. */
    static void remove() {
        Path extracted = extractedLibraries();
        if (extracted != null && Files.isDirectory(extracted)) {
            try (Stream<Path> s = Files.walk(extracted)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            } catch (IOException | RuntimeException e) {
                // a loaded library that may not be deleted (Windows): ONNX Runtime removes it at exit
            }
        }
        String log = "mat-debug-" + ProcessHandle.current().pid() + ".log";
        for (Path dir : new Path[] {Path.of("/tmp"), Path.of(System.getProperty("java.io.tmpdir"))}) {
            Path p = dir.resolve(log);
            try {
                if (Files.isRegularFile(p) && Files.size(p) == 0) {
                    Files.delete(p);
                }
            } catch (IOException | RuntimeException e) {
                // someone else's file, or not ours to remove
            }
        }
    }

    /** The folder ONNX Runtime's loader extracted its libraries into, or null when it did not say. */
    static Path extractedLibraries() {
        try {
            Field f = Class.forName("ai.onnxruntime.OnnxRuntime").getDeclaredField("tempDirectory");
            f.setAccessible(true);
            return f.get(null) instanceof Path p ? p : null;
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null; // another ONNX Runtime version: its leftovers are its own
        }
    }
}
