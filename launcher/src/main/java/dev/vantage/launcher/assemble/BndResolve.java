package dev.vantage.launcher.assemble;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import aQute.bnd.osgi.BundleId;
import aQute.bnd.osgi.repository.SimpleIndexer;
import biz.aQute.resolve.Bndrun;
import biz.aQute.resolve.RunResolution;

/**
 * Resolves a set of root bundles against candidate jars with bnd's resolver, as the build resolves the shipped
 * distributions: the candidates are indexed into an OSGi repository, and a standalone bndrun names the framework,
 * the Java version and the roots. Loaded in a class loader of its own, with bnd's jars, by {@code Assemble}.
 */
public final class BndResolve {

    private static final Pattern MISSING = Pattern.compile(
            "Unable to resolve ([^ ]+) version=([^:]+): missing requirement ([^;]+);filter:='([^']*)'");

    private BndResolve() {
    }

    /**
     * Returns the symbolic name and version ({@code bsn;version}) of every bundle the roots need, themselves
     * included.
     *
     * @param candidates the jars to choose from
     * @param framework the OSGi framework jar
     * @param roots symbolic names of the bundles the distribution must hold
     * @param providedCapabilities what the launcher provides, as bnd's {@code -runprovidedcapabilities}
     * @throws IllegalStateException if the roots do not resolve; the message names the deepest missing requirement
     */
    public static List<String> resolve(List<File> candidates, File framework, List<String> roots,
            String providedCapabilities, File workDir) throws Exception {
        Path work = workDir.toPath();
        List<File> all = new ArrayList<>(candidates);
        all.add(framework);
        new SimpleIndexer().files(all).base(work.toUri()).index(work.resolve("index.xml").toFile());
        StringBuilder run = new StringBuilder();
        run.append("-standalone: index.xml\n");
        run.append("-runfw: org.apache.felix.framework\n");
        run.append("-runee: JavaSE-17\n");
        run.append("-resolve.effective: active\n");
        if (!providedCapabilities.isEmpty()) {
            run.append("-runprovidedcapabilities: ").append(providedCapabilities).append('\n');
        }
        run.append("-runrequires: ");
        for (int i = 0; i < roots.size(); i++) {
            run.append(i == 0 ? "" : ",").append("bnd.identity;id='").append(roots.get(i)).append('\'');
        }
        run.append('\n');
        Path bndrun = work.resolve("assemble.bndrun");
        Files.writeString(bndrun, run);
        try (Bndrun b = Bndrun.createBndrun(null, bndrun.toFile())) {
            RunResolution r = b.resolve();
            if (!r.isOK()) {
                throw new IllegalStateException(describe(String.valueOf(r.exception)));
            }
            List<String> bundles = new ArrayList<>();
            for (BundleId id : r.getResolvedRunBundles()) {
                bundles.add(id.getBsn() + ";" + id.getVersion());
            }
            return bundles;
        }
    }

    /** The innermost {@code bundle needs requirement} of a resolver message, in words. */
    static String describe(String message) {
        Matcher m = MISSING.matcher(message);
        String bundle = null;
        String version = null;
        String namespace = null;
        String filter = null;
        while (m.find()) {
            bundle = m.group(1);
            version = m.group(2);
            namespace = m.group(3);
            filter = m.group(4);
        }
        if (bundle == null) {
            return message;
        }
        Map<String, String> words = Map.of("osgi.wiring.package", "package", "osgi.service", "service",
                "osgi.extender", "extender", "osgi.identity", "bundle", "osgi.ee", "Java");
        return bundle + " " + version + " needs " + words.getOrDefault(namespace, namespace) + " "
                + readable(namespace, filter);
    }

    /** {@code (&(osgi.wiring.package=a.b)(version>=1.0.0)(!(version>=2.0.0)))} as {@code a.b [1.0.0,2.0.0)}. */
    private static String readable(String namespace, String filter) {
        Matcher name = Pattern.compile("\\((?:" + Pattern.quote(namespace) + "|objectClass)=([^)]*)\\)")
                .matcher(filter);
        Matcher low = Pattern.compile("\\(version>=([^)]*)\\)").matcher(filter);
        Matcher high = Pattern.compile("\\(!\\(version>=([^)]*)\\)\\)").matcher(filter);
        if (!name.find()) {
            return filter;
        }
        String text = name.group(1);
        if (low.find()) {
            text += " [" + low.group(1) + "," + (high.find() ? high.group(1) : "") + ")";
        }
        return text;
    }
}
