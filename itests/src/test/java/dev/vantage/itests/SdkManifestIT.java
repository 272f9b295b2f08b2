package dev.vantage.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.BeforeClass;
import org.junit.Test;

/**
 * Reads the manifests bnd generated for every Vantage jar a vendor builds against or beside (the full
 * distribution's bundles and the two contract suites) and checks the versioning rules the plugin guide promises:
 * every exported package has a version, nothing imports a package nobody exports, every interface of an exported
 * package says whether a plugin or the platform implements it, and a plugin bundle imports the platform's packages
 * with ranges that reach the next major version, so that a minor release of the platform does not strand it.
 * Also checks that the analysis library (lib/analysis/), which is not a bundle, claims no bundle headers.
 */
public class SdkManifestIT {

    /** Interfaces a vendor's device or exporter bundle implements: each must be a consumer type. */
    private static final List<String> IMPLEMENTED_BY_PLUGINS = List.of(
            "dev.vantage.profiler.spi.DeviceActivitySource",
            "dev.vantage.profiler.spi.ActivitySession",
            "dev.vantage.profiler.spi.MemoryAllocator",
            "dev.vantage.profiler.spi.TraceExporter",
            "dev.vantage.profiler.dispatch.DispatchHook",
            "dev.vantage.tensor.spi.Backend",
            "dev.vantage.tensor.spi.Kernel",
            "dev.vantage.tensor.workload.Workload",
            "dev.vantage.device.kit.DeviceDriver",
            "dev.vantage.device.kit.TracingDriver",
            "dev.vantage.device.onnxruntime.SessionOptionsFactory");

    private static final String CONSUMER = "Lorg/osgi/annotation/versioning/ConsumerType;";
    private static final String PROVIDER = "Lorg/osgi/annotation/versioning/ProviderType;";

    private static final Map<String, Path> JARS = new TreeMap<>();

    @BeforeClass
    public static void findJars() throws IOException {
        JARS.putAll(Distributions.vantageJars());
        for (String expected : List.of("dev.vantage.profiler.api", "dev.vantage.tensor", "dev.vantage.device.kit",
                "dev.vantage.device.contract", "dev.vantage.exporter.contract", "dev.vantage.device.npu",
                "dev.vantage.exporter.csv")) {
            assertTrue("no jar for " + expected + " among " + JARS.keySet(), JARS.containsKey(expected));
        }
    }

    @Test
    public void everyExportedPackageHasAVersion() throws IOException {
        List<String> unversioned = new ArrayList<>();
        for (Map.Entry<String, Path> e : JARS.entrySet()) {
            for (Map.Entry<String, Map<String, String>> clause : clauses(header(e.getValue(), "Export-Package"))
                    .entrySet()) {
                if (!clause.getValue().containsKey("version")) {
                    unversioned.add(e.getKey() + " exports " + clause.getKey());
                }
            }
        }
        assertEquals(List.of(), unversioned);
    }

    @Test
    public void nothingImportsAPackageNoVantageBundleExports() throws IOException {
        Set<String> exported = new TreeSet<>();
        for (Path jar : JARS.values()) {
            exported.addAll(clauses(header(jar, "Export-Package")).keySet());
        }
        List<String> dangling = new ArrayList<>();
        for (Map.Entry<String, Path> e : JARS.entrySet()) {
            for (String pkg : clauses(header(e.getValue(), "Import-Package")).keySet()) {
                if (pkg.startsWith("dev.vantage.") && !exported.contains(pkg)) {
                    dangling.add(e.getKey() + " imports " + pkg);
                }
            }
        }
        assertEquals("a bundle that imports an unexported package resolves in no framework", List.of(), dangling);
    }

    @Test
    public void pluginBundlesImportThePlatformUpToTheNextMajorVersion() throws IOException {
        List<String> pinned = new ArrayList<>();
        int plugins = 0;
        for (Map.Entry<String, Path> e : JARS.entrySet()) {
            if (!isPlugin(e.getKey())) {
                continue;
            }
            plugins++;
            for (Map.Entry<String, Map<String, String>> clause : clauses(header(e.getValue(), "Import-Package"))
                    .entrySet()) {
                if (!clause.getKey().startsWith("dev.vantage.")) {
                    continue;
                }
                String range = clause.getValue().get("version");
                if (range == null || !reachesNextMajor(range)) {
                    pinned.add(e.getKey() + " imports " + clause.getKey() + " " + range);
                }
            }
        }
        assertTrue("found only " + plugins + " plugin bundles", plugins >= 8);
        assertEquals("a plugin that implements a provider type is pinned to one minor version", List.of(), pinned);
    }

    @Test
    public void everyInterfaceOfAnExportedPackageNamesItsRole() throws IOException {
        List<String> unmarked = new ArrayList<>();
        Map<String, String> roles = new LinkedHashMap<>();
        for (Map.Entry<String, Path> e : JARS.entrySet()) {
            Set<String> exported = clauses(header(e.getValue(), "Export-Package")).keySet();
            try (JarFile jar = new JarFile(e.getValue().toFile())) {
                for (Enumeration<JarEntry> en = jar.entries(); en.hasMoreElements();) {
                    JarEntry entry = en.nextElement();
                    String name = entry.getName();
                    if (!name.endsWith(".class") || name.endsWith("package-info.class") || name.contains("$")) {
                        continue;
                    }
                    String cls = name.substring(0, name.length() - 6).replace('/', '.');
                    String pkg = cls.substring(0, cls.lastIndexOf('.'));
                    if (!exported.contains(pkg) || !pkg.startsWith("dev.vantage.")) {
                        // a library a bundle exports as it ships (ONNX Runtime's ai.onnxruntime) is not ours to mark
                        continue;
                    }
                    byte[] bytes;
                    try (InputStream in = jar.getInputStream(entry)) {
                        bytes = in.readAllBytes();
                    }
                    if (!isPublicInterface(bytes)) {
                        continue;
                    }
                    String text = new String(bytes, StandardCharsets.ISO_8859_1);
                    boolean consumer = text.contains(CONSUMER);
                    boolean provider = text.contains(PROVIDER);
                    if (consumer == provider) {
                        unmarked.add(cls);
                    }
                    roles.put(cls, consumer ? "consumer" : "provider");
                }
            }
        }
        assertEquals("interfaces that are neither @ConsumerType nor @ProviderType", List.of(), unmarked);
        for (String type : IMPLEMENTED_BY_PLUGINS) {
            assertEquals(type + " is implemented by plugins", "consumer", roles.get(type));
        }
    }

    /**
     * Plugin-side bundles: devices, the device kit they build on, exporters, workloads. Not the contract suites,
     * and not the CPU device, the platform's host, which implements the runtime's {@code HostKernels}.
     */
    private static boolean isPlugin(String bsn) {
        return (bsn.startsWith("dev.vantage.device.") || bsn.startsWith("dev.vantage.exporter.")
                || bsn.equals("dev.vantage.workloads")) && !bsn.endsWith(".contract")
                && !bsn.equals("dev.vantage.device.cpu");
    }

    @Test
    public void everyDeviceThatComputesOnTheHostRequiresTheHostKernelsServiceAndTheCpuBundleProvidesIt()
            throws IOException {
        String hostKernels = "dev.vantage.tensor.spi.HostKernels";
        List<String> devices = new ArrayList<>();
        for (Map.Entry<String, Path> e : JARS.entrySet()) {
            String provided = String.valueOf(header(e.getValue(), "Provide-Capability"));
            String required = String.valueOf(header(e.getValue(), "Require-Capability"));
            boolean backend = provided.contains("\"dev.vantage.tensor.spi.Backend");
            if (e.getKey().equals("dev.vantage.device.cpu")) {
                assertTrue("the host bundle offers its kernels: " + provided, provided.contains(hostKernels));
            } else if (backend) {
                devices.add(e.getKey());
                assertTrue(e.getKey() + " computes on the host; without the host bundle its driver must stay"
                        + " unsatisfied and say why: " + required,
                        required.contains("(objectClass=" + hostKernels + ")"));
            }
        }
        assertEquals(List.of("dev.vantage.device.mps", "dev.vantage.device.npu", "dev.vantage.device.spyre"),
                devices);
    }

    private static final Pattern RANGE = Pattern.compile("\\[(\\d+)(?:\\.\\d+)*,(\\d+)(?:\\.(\\d+))?(?:\\.\\d+)?\\)");

    /** True for {@code [a.b,c)} where c is a+1 (and no minor ceiling). */
    static boolean reachesNextMajor(String range) {
        Matcher m = RANGE.matcher(range);
        if (!m.matches()) {
            return false;
        }
        int floor = Integer.parseInt(m.group(1));
        int ceiling = Integer.parseInt(m.group(2));
        boolean minorCeiling = m.group(3) != null && Integer.parseInt(m.group(3)) != 0;
        return ceiling == floor + 1 && !minorCeiling;
    }

    @Test
    public void theBomNamesTheVersionsThisBuildMade() throws Exception {
        Path bom = Path.of("..", "bom", "pom.xml");
        org.w3c.dom.Document doc = javax.xml.parsers.DocumentBuilderFactory.newInstance().newDocumentBuilder()
                .parse(bom.toFile());
        org.w3c.dom.NodeList deps = doc.getElementsByTagName("dependency");
        Set<String> built = new TreeSet<>();
        for (Path jar : JARS.values()) {
            built.add(jar.getFileName().toString());
        }
        List<String> wrong = new ArrayList<>();
        int vantage = 0;
        for (int i = 0; i < deps.getLength(); i++) {
            org.w3c.dom.Element d = (org.w3c.dom.Element) deps.item(i);
            if (!"dev.vantage".equals(text(d, "groupId"))) {
                continue;
            }
            vantage++;
            String file = text(d, "artifactId") + "-" + text(d, "version") + ".jar";
            if (!built.contains(file)) {
                wrong.add(file);
            }
        }
        assertTrue("the BOM names " + vantage + " Vantage artifacts", vantage >= 6);
        assertEquals("BOM entries with no such jar in this build (built: " + built + ")", List.of(), wrong);
    }

    private static String text(org.w3c.dom.Element parent, String tag) {
        return parent.getElementsByTagName(tag).item(0).getTextContent().trim();
    }

    @Test
    public void theAnalysisLibraryClaimsNoBundleHeaders() throws IOException {
        // a plain library the launcher loads from lib/analysis/ in a class loader, never installed in a framework
        Path lib = Distributions.home("full").resolve("lib").resolve("analysis");
        List<Path> jars;
        try (java.util.stream.Stream<Path> files = java.nio.file.Files.list(lib)) {
            jars = files.filter(f -> f.getFileName().toString().matches("analysis-[0-9.]+\\.jar")).toList();
        }
        assertEquals("the analysis jar in " + lib, 1, jars.size());
        try (JarFile f = new JarFile(jars.get(0).toFile())) {
            List<String> osgi = new ArrayList<>();
            for (Object name : f.getManifest().getMainAttributes().keySet()) {
                String header = name.toString();
                if (header.startsWith("Bundle-") || header.endsWith("-Package") || header.endsWith("-Capability")) {
                    osgi.add(header);
                }
            }
            assertEquals(jars.get(0) + " is not a bundle", List.of(), osgi);
        }
    }

    @Test
    public void theRangeRuleItselfTellsMajorFromMinor() {
        assertTrue(reachesNextMajor("[2.0,3)"));
        assertTrue(reachesNextMajor("[1.4,2)"));
        assertFalse(reachesNextMajor("[1.4,1.5)"));
        assertFalse(reachesNextMajor("[2.1,2.2)"));
        assertFalse(reachesNextMajor("1.4"));
        assertFalse(reachesNextMajor("[1.0,3)"));
    }

    private static boolean isPublicInterface(byte[] c) {
        // skip the constant pool to reach access_flags (JVMS 4.1)
        int count = ((c[8] & 0xff) << 8) | (c[9] & 0xff);
        int i = 10;
        for (int k = 1; k < count; k++) {
            int tag = c[i] & 0xff;
            switch (tag) {
                case 1 -> i += 3 + (((c[i + 1] & 0xff) << 8) | (c[i + 2] & 0xff));
                case 3, 4, 9, 10, 11, 12, 17, 18 -> i += 5;
                case 5, 6 -> {
                    i += 9;
                    k++;
                }
                case 7, 8, 16, 19, 20 -> i += 3;
                case 15 -> i += 4;
                default -> throw new IllegalStateException("unknown constant pool tag " + tag);
            }
        }
        int flags = ((c[i] & 0xff) << 8) | (c[i + 1] & 0xff);
        return (flags & 0x0001) != 0 && (flags & 0x0200) != 0 && (flags & 0x2000) == 0;
    }

    private static String header(Path jar, String name) throws IOException {
        try (JarFile f = new JarFile(jar.toFile())) {
            return f.getManifest() == null ? null : f.getManifest().getMainAttributes().getValue(name);
        }
    }

    /** Parses an OSGi header into package name to attributes (directives dropped); commas in quotes kept. */
    static Map<String, Map<String, String>> clauses(String header) {
        Map<String, Map<String, String>> result = new TreeMap<>();
        if (header == null) {
            return result;
        }
        List<String> parts = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        boolean quoted = false;
        for (char ch : header.toCharArray()) {
            if (ch == '"') {
                quoted = !quoted;
            }
            if (ch == ',' && !quoted) {
                parts.add(cur.toString());
                cur.setLength(0);
            } else {
                cur.append(ch);
            }
        }
        parts.add(cur.toString());
        for (String part : parts) {
            String[] items = part.split(";(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)");
            Map<String, String> attrs = new TreeMap<>();
            for (int i = 1; i < items.length; i++) {
                String item = items[i].trim();
                int eq = item.indexOf('=');
                if (eq > 0 && item.charAt(eq - 1) != ':') {
                    attrs.put(item.substring(0, eq).trim(), item.substring(eq + 1).trim().replace("\"", ""));
                }
            }
            result.put(items[0].trim(), attrs);
        }
        return result;
    }
}
