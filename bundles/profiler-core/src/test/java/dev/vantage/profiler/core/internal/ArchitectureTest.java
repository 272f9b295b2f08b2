package dev.vantage.profiler.core.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import org.junit.Test;

import dev.vantage.profiler.api.Profiler;

/**
 * The arrows of DESIGN.md: the profiler core and API never name a tensor, device or exporter class. Checked on
 * the compiled classes' constant pools, which hold every class, method and string a class refers to.
 */
public class ArchitectureTest {

    private static final List<String> FORBIDDEN = List.of(
            "dev/vantage/tensor", "dev/vantage/device", "dev/vantage/exporter",
            "dev.vantage.tensor", "dev.vantage.device", "dev.vantage.exporter");

    @Test
    public void profilerCoreNamesNoTensorDeviceOrExporterClass() throws Exception {
        List<String> violations = new ArrayList<>();
        int checked = scan(location(ProfilerComponent.class), violations);
        assertTrue("classes checked: " + checked, checked >= 8);
        assertEquals(List.of(), violations);
    }

    @Test
    public void profilerApiNamesNoTensorDeviceOrExporterClass() throws Exception {
        List<String> violations = new ArrayList<>();
        int checked = scan(location(Profiler.class), violations);
        assertTrue("classes checked: " + checked, checked >= 20);
        assertEquals(List.of(), violations);
    }

    /** Checks every class in a classes folder or a jar; returns how many classes it read. */
    private static int scan(Path classes, List<String> violations) throws IOException {
        int checked = 0;
        if (Files.isDirectory(classes)) {
            try (Stream<Path> s = Files.walk(classes)) {
                for (Path p : s.filter(f -> f.toString().endsWith(".class")).collect(Collectors.toList())) {
                    checked++;
                    try (InputStream in = Files.newInputStream(p)) {
                        violations.addAll(forbiddenReferences(p.toString(), in));
                    }
                }
            }
            return checked;
        }
        try (JarFile jar = new JarFile(classes.toFile())) {
            for (JarEntry e : Collections.list(jar.entries())) {
                if (e.getName().endsWith(".class")) {
                    checked++;
                    try (InputStream in = jar.getInputStream(e)) {
                        violations.addAll(forbiddenReferences(e.getName(), in));
                    }
                }
            }
        }
        return checked;
    }

    @Test
    public void theCheckFindsAReferenceWhenThereIsOne() throws Exception {
        // this test class's own constant pool holds the forbidden prefixes as strings: the scanner must see them
        Path self = location(ArchitectureTest.class).resolve(
                ArchitectureTest.class.getName().replace('.', '/') + ".class");
        try (InputStream in = Files.newInputStream(self)) {
            assertTrue(forbiddenReferences("self", in).size() >= FORBIDDEN.size());
        }
    }

    private static Path location(Class<?> type) throws URISyntaxException {
        return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    /** Reads a class file's constant pool and returns the UTF-8 entries that name a forbidden package. */
    static List<String> forbiddenReferences(String name, InputStream classFile) throws IOException {
        DataInputStream in = new DataInputStream(classFile);
        if (in.readInt() != 0xCAFEBABE) {
            throw new IOException(name + " is not a class file");
        }
        in.readUnsignedShort();
        in.readUnsignedShort();
        int count = in.readUnsignedShort();
        List<String> found = new ArrayList<>();
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1 -> {
                    String utf8 = in.readUTF();
                    for (String f : FORBIDDEN) {
                        if (utf8.contains(f)) {
                            found.add(name + " -> " + utf8);
                            break;
                        }
                    }
                }
                case 7, 8, 16, 19, 20 -> in.readUnsignedShort();
                case 15 -> {
                    in.readUnsignedByte();
                    in.readUnsignedShort();
                }
                case 3, 4, 9, 10, 11, 12, 17, 18 -> in.readInt();
                case 5, 6 -> {
                    in.readLong();
                    i++;
                }
                default -> throw new IOException(name + ": unknown constant pool tag " + tag);
            }
        }
        return found;
    }
}
