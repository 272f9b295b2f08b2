package dev.vantage.launcher.platform;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Filter;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.Version;
import org.osgi.framework.wiring.BundleCapability;
import org.osgi.framework.wiring.BundleRequirement;
import org.osgi.framework.wiring.BundleRevision;

/**
 * Why a deployed bundle does not resolve, told as a person needs it: the packages it imports that no installed
 * bundle exports, each with its version range and the jar of a distribution that would provide it, instead of
 * the resolver's filter text.
 */
final class MissingPackages {

    private static final String PACKAGE = BundleRevision.PACKAGE_NAMESPACE;
    private static final Pattern NAME = Pattern.compile("\\(osgi\\.wiring\\.package=([^)]+)\\)");
    private static final Pattern FLOOR = Pattern.compile("(?<!!)\\(version>=([^)]+)\\)");
    private static final Pattern CEILING = Pattern.compile("\\(!\\(version>=([^)]+)\\)\\)");

    /** One import that nothing installed satisfies. */
    record Missing(String packageName, String range, Filter filter) {
    }

    private MissingPackages() {
    }

    /** Returns the mandatory package imports of a bundle that no installed bundle's export satisfies. */
    static List<Missing> of(Bundle bundle, BundleContext context) {
        BundleRevision revision = bundle.adapt(BundleRevision.class);
        List<Missing> missing = new ArrayList<>();
        if (revision == null) {
            return missing;
        }
        for (BundleRequirement req : revision.getDeclaredRequirements(PACKAGE)) {
            if ("optional".equals(req.getDirectives().get("resolution"))) {
                continue;
            }
            String filterText = req.getDirectives().get("filter");
            Filter filter;
            try {
                filter = FrameworkUtil.createFilter(filterText);
            } catch (InvalidSyntaxException e) {
                continue;
            }
            if (!satisfied(filter, bundle, context)) {
                missing.add(new Missing(group(NAME, filterText, "?"), range(filterText), filter));
            }
        }
        return missing;
    }

    private static boolean satisfied(Filter filter, Bundle importer, BundleContext context) {
        for (Bundle b : context.getBundles()) {
            BundleRevision r = b == importer ? null : b.adapt(BundleRevision.class);
            if (r == null) {
                continue;
            }
            for (BundleCapability cap : r.getDeclaredCapabilities(PACKAGE)) {
                if (filter.matches(cap.getAttributes())) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The version range of a package filter, as an import writes it: {@code [2.22.0,3.0.0)}, or "any version". */
    static String range(String filter) {
        String floor = group(FLOOR, filter, null);
        String ceiling = group(CEILING, filter, null);
        if (floor == null && ceiling == null) {
            return "any version";
        }
        return "[" + (floor == null ? "0.0.0" : floor) + "," + (ceiling == null ? "∞" : ceiling) + ")";
    }

    private static String group(Pattern p, String text, String otherwise) {
        Matcher m = p.matcher(text);
        return m.find() ? m.group(1) : otherwise;
    }

    /**
     * Returns the file name of a jar in {@code bundles} that exports a package matching the import, or null.
     */
    static String provider(Missing missing, Path bundles) {
        if (bundles == null || !Files.isDirectory(bundles)) {
            return null;
        }
        try (Stream<Path> jars = Files.list(bundles)) {
            for (Path jar : jars.filter(p -> p.toString().endsWith(".jar")).sorted().toList()) {
                if (exports(jar, missing)) {
                    return jar.getFileName().toString();
                }
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }

    private static boolean exports(Path jar, Missing missing) {
        try (JarFile f = new JarFile(jar.toFile())) {
            Manifest m = f.getManifest();
            String header = m == null ? null : m.getMainAttributes().getValue("Export-Package");
            if (header == null) {
                return false;
            }
            for (String clause : clauses(header)) {
                String[] parts = clause.split(";");
                String version = "0.0.0";
                for (String part : parts) {
                    String p = part.trim();
                    if (p.startsWith("version=")) {
                        version = p.substring("version=".length()).replace("\"", "").trim();
                    }
                }
                for (String part : parts) {
                    String name = part.trim();
                    if (name.isEmpty() || name.contains("=")) {
                        continue;
                    }
                    if (missing.filter().matches(Map.of(PACKAGE, name, "version", Version.parseVersion(version)))) {
                        return true;
                    }
                }
            }
        } catch (IOException | IllegalArgumentException e) {
            return false;
        }
        return false;
    }

    /** Splits a manifest header at the commas outside quotes. */
    static List<String> clauses(String header) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean quoted = false;
        for (char c : header.toCharArray()) {
            if (c == '"') {
                quoted = !quoted;
            }
            if (c == ',' && !quoted) {
                out.add(current.toString());
                current.setLength(0);
            } else {
                current.append(c);
            }
        }
        out.add(current.toString());
        return out;
    }

    /**
     * The one line a user reads: what the bundle needs and, when {@code providers} is given, where to get it.
     *
     * @param providers the bundles folder of the distribution that may provide what is missing, or null to name
     *        no provider
     */
    static String describe(Bundle bundle, String file, List<Missing> missing, Path providers) {
        String source = providers == null ? null : providers.getParent().getFileName() + " distribution";
        StringBuilder s = new StringBuilder("bundle " + bundle.getSymbolicName() + " " + bundle.getVersion() + " ("
                + file + ") cannot resolve: it needs ");
        for (int i = 0; i < missing.size(); i++) {
            Missing m = missing.get(i);
            s.append(i == 0 ? "" : "; and ").append("package ").append(m.packageName()).append(' ')
                    .append(m.range());
            if (source != null) {
                String jar = provider(m, providers);
                s.append(jar != null ? ", which " + jar + " of the " + source + " provides: deploy it too"
                        : ", which no bundle of the " + source + " provides");
            }
        }
        return s.append("; the platform goes on").toString();
    }
}
