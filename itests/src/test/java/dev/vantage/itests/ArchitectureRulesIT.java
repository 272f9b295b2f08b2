package dev.vantage.itests;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;

import org.junit.BeforeClass;
import org.junit.Test;

import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;

/**
 * The arrows of DESIGN.md, checked with ArchUnit on the classes of every Vantage jar the build made: the full
 * distribution's bundles, the two contract suites, and the jars that are not bundles (the analysis library the
 * launcher loads from {@code lib/analysis}, the launcher itself) and the benchmarks' own classes. The profiler core
 * and API name no runtime, device or exporter class; no device bundle uses another; no exporter uses the core; no
 * jar reaches into another's {@code internal} packages; the analysis library reads published outputs only; the
 * launcher holds no platform class; the benchmarks declare classes of their own package only and reach the modules
 * through their public APIs and their test jars' fixtures.
 */
public class ArchitectureRulesIT {

    private static final List<String> DEVICES = List.of("cpu", "npu", "spyre", "mps");

    private static JavaClasses classes;
    private static JavaClasses benchmarks;
    /** Every class of a main (not test) jar of Vantage's: what "internal" means for the benchmarks. */
    private static final java.util.Set<String> MAIN = new java.util.HashSet<>();

    @BeforeClass
    public static void importJars() throws IOException {
        List<JarFile> jars = new ArrayList<>();
        for (Path jar : Distributions.vantageJars().values()) {
            jars.add(new JarFile(jar.toFile()));
        }
        Path full = Distributions.home("full");
        jars.add(new JarFile(only(full.resolve("lib/analysis"), "analysis-").toFile()));
        jars.add(new JarFile(full.resolve("launcher.jar").toFile()));
        classes = new ClassFileImporter().importJars(jars);
        assertTrue("classes imported: " + classes.size(), classes.size() > 300);
        classes.forEach(c -> MAIN.add(c.getName()));
        benchmarks = new ClassFileImporter().importPath(Path.of("..", "benchmarks", "target", "classes"));
        assertTrue("benchmark classes imported: " + benchmarks.size(), benchmarks.size() > 10);
    }

    private static Path only(Path dir, String prefix) throws IOException {
        try (java.util.stream.Stream<Path> s = java.nio.file.Files.list(dir)) {
            return s.filter(p -> p.getFileName().toString().startsWith(prefix)).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no " + prefix + "*.jar in " + dir));
        }
    }

    /** The analysis library reads traces, Parquet and runs.jsonl through the engine; no core class of the platform's. */
    @Test
    public void theAnalysisLibraryReadsPublishedOutputsOnly() {
        noClasses().that().resideInAPackage("dev.vantage.analysis..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.vantage.profiler.core..",
                        "dev.vantage.tensor..", "dev.vantage.device..", "dev.vantage.ondemand..")
                .check(classes);
    }

    /** The launcher runs the command tree and boots Felix: no platform class is on its class path. */
    @Test
    public void theLauncherHoldsNoPlatformClass() {
        noClasses().that().resideInAPackage("dev.vantage.launcher..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.vantage.profiler..", "dev.vantage.trace..",
                        "dev.vantage.tensor..", "dev.vantage.device..", "dev.vantage.exporter..",
                        "dev.vantage.analysis..", "dev.vantage.verbs..", "dev.vantage.agent..")
                .check(classes);
    }

    /** The benchmarks' classes are in their own package: none is declared in another module's (internal) package. */
    @Test
    public void theBenchmarksDeclareClassesOfTheirOwnPackageOnly() {
        classes().should().resideInAPackage("dev.vantage.benchmarks..").check(benchmarks);
    }

    /**
     * The benchmarks reach the modules through their public APIs and their test jars' fixtures (the core's
     * {@code StandaloneProfiler}, say): never an internal class of a module's main jar.
     */
    @Test
    public void theBenchmarksReachNoInternalClassOfAModule() {
        classes().should(new ArchCondition<JavaClass>("use no internal class of a module's main jar") {
            @Override
            public void check(JavaClass origin, ConditionEvents events) {
                for (Dependency d : origin.getDirectDependenciesFromSelf()) {
                    JavaClass target = d.getTargetClass();
                    if (target.getPackageName().contains(".internal") && MAIN.contains(target.getName())) {
                        events.add(SimpleConditionEvent.violated(d, d.getDescription()));
                    }
                }
            }
        }).check(benchmarks);
    }

    @Test
    public void theProfilerNamesNoRuntimeDeviceOrExporterClass() {
        noClasses().that().resideInAnyPackage("dev.vantage.profiler..")
                .should().dependOnClassesThat().resideInAnyPackage("dev.vantage.tensor..", "dev.vantage.device..",
                        "dev.vantage.exporter..")
                .check(classes);
    }

    @Test
    public void noDeviceBundleUsesAnother() {
        for (String device : DEVICES) {
            List<String> others = new ArrayList<>();
            DEVICES.stream().filter(d -> !d.equals(device)).forEach(d -> others.add("dev.vantage.device." + d + ".."));
            noClasses().that().resideInAPackage("dev.vantage.device." + device + "..")
                    .should().dependOnClassesThat().resideInAnyPackage(others.toArray(new String[0]))
                    .check(classes);
        }
    }

    @Test
    public void noExporterUsesTheProfilerCore() {
        noClasses().that().resideInAPackage("dev.vantage.exporter..")
                .should().dependOnClassesThat().resideInAPackage("dev.vantage.profiler.core..")
                .check(classes);
    }

    @Test
    public void nothingReachesIntoAnotherBundlesInternals() {
        classes().should(new ArchCondition<JavaClass>("use internal packages of their own bundle only") {
            @Override
            public void check(JavaClass origin, ConditionEvents events) {
                for (Dependency d : origin.getDirectDependenciesFromSelf()) {
                    String target = d.getTargetClass().getPackageName();
                    int internal = target.indexOf(".internal");
                    if (!target.startsWith("dev.vantage.") || internal < 0) {
                        continue;
                    }
                    String bundle = target.substring(0, internal);
                    if (!origin.getPackageName().startsWith(bundle)) {
                        events.add(SimpleConditionEvent.violated(d, d.getDescription()));
                    }
                }
            }
        }).check(classes);
    }

    /**
     * The profiler core records and analyses; it writes no file format itself. Traces go through the
     * {@code TraceExporter} services and every other file (memory timelines, snapshots, stacks, the run registry)
     * through the files bundle's services; the on-demand bundle likewise only asks them.
     */
    @Test
    public void theCoreAndTheOnDemandBundleWriteNoFileFormat() {
        noClasses().that().resideInAnyPackage("dev.vantage.profiler.core..", "dev.vantage.ondemand..")
                .should().dependOnClassesThat().haveFullyQualifiedName("java.nio.file.Files")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.io.FileOutputStream")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.io.FileWriter")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.io.RandomAccessFile")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.nio.channels.FileChannel")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("java.util.zip.GZIPOutputStream")
                .orShould().dependOnClassesThat().haveFullyQualifiedName("dev.vantage.profiler.spi.TraceFiles")
                .orShould().dependOnClassesThat().resideInAnyPackage("com.fasterxml.jackson..", "net.razorvine..")
                .check(classes);
    }

    @Test
    public void theRulesSeeAViolationWhenThereIsOne() {
        // the archetype-free way to prove a rule bites: the contract suite does use the CPU device, which a device
        // bundle must not
        try {
            noClasses().that().resideInAPackage("dev.vantage.device.contract..")
                    .should().dependOnClassesThat().resideInAPackage("dev.vantage.device.cpu..")
                    .check(classes);
        } catch (AssertionError expected) {
            assertTrue(expected.getMessage(), expected.getMessage().contains("dev.vantage.device.cpu.host.CpuHost"));
            return;
        }
        throw new AssertionError("the contract suite's use of CpuHost went unseen");
    }
}
