package dev.vantage.exporter.files.internal;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;

import dev.vantage.profiler.api.RunRecord;
import dev.vantage.profiler.spi.RunRegistry;

/**
 * The run registry ({@code <profile-dir>/runs.jsonl}): appends a finished run's line with the platform's facts and
 * every bundle's version, which it reads from the framework at the time of the run.
 */
@Component(service = RunRegistry.class)
public class RunRegistryComponent implements RunRegistry {

    private BundleContext context;

    /** For DS. */
    public RunRegistryComponent() {
    }

    /** Over a framework, or none (tests): then the line names no framework and no bundle. */
    RunRegistryComponent(BundleContext context) {
        this.context = context;
    }

    @Activate
    void activate(BundleContext bundleContext) {
        this.context = bundleContext;
    }

    @Override
    public Path record(Path profileDir, RunRecord run) throws IOException {
        Objects.requireNonNull(profileDir, "profileDir");
        Objects.requireNonNull(run, "run");
        return RunLog.append(profileDir, run, platformFacts(), bundleVersions());
    }

    /** The framework, distribution, Java and OS a run line names. */
    Map<String, String> platformFacts() {
        Map<String, String> facts = new LinkedHashMap<>();
        if (context != null) {
            Bundle framework = context.getBundle(0);
            facts.put("framework", framework.getSymbolicName() + " " + framework.getVersion());
        }
        facts.put("distribution", System.getProperty("vantage.platform"));
        facts.put("java", System.getProperty("java.version"));
        facts.put("java_vm", System.getProperty("java.vm.name"));
        facts.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        facts.put("processors", Integer.toString(Runtime.getRuntime().availableProcessors()));
        return facts;
    }

    /** Every bundle of the running platform, by symbolic name; empty outside a framework. */
    List<RunLog.BundleVersion> bundleVersions() {
        List<RunLog.BundleVersion> list = new ArrayList<>();
        if (context != null) {
            for (Bundle b : context.getBundles()) {
                if (b.getBundleId() != 0 && b.getSymbolicName() != null) {
                    list.add(new RunLog.BundleVersion(b.getSymbolicName(), b.getVersion().toString()));
                }
            }
        }
        list.sort(Comparator.comparing(RunLog.BundleVersion::symbolicName)
                .thenComparing(RunLog.BundleVersion::version));
        return list;
    }
}
