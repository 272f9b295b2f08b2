package dev.vantage.launcher.assemble;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The named, versioned bundle sets a distribution is made of, as Karaf's features are: {@code conf/features.bnd},
 * the file the build's {@code full.bndrun} and {@code minimal.bndrun} include. Each {@code feature.<name>} lists
 * root bundles ({@code bnd.identity;id='...'}); the resolver adds what they need.
 */
record Features(String version, Map<String, List<String>> roots) {

    private static final Pattern ID = Pattern.compile("bnd\\.identity;id='([^']+)'");

    /**
     * Reads a distribution's features.
     *
     * @throws IOException if the file cannot be read
     * @throws IllegalStateException if the distribution has no features file
     */
    static Features read(Path home) throws IOException {
        Path file = home.resolve("conf").resolve("features.bnd");
        if (!Files.isRegularFile(file)) {
            throw new IllegalStateException("this distribution has no feature list (" + file + ")");
        }
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(file)) {
            p.load(in);
        }
        Map<String, List<String>> roots = new TreeMap<>();
        for (String key : p.stringPropertyNames()) {
            if (!key.startsWith("feature.")) {
                continue;
            }
            List<String> ids = new ArrayList<>();
            Matcher m = ID.matcher(p.getProperty(key));
            while (m.find()) {
                ids.add(m.group(1));
            }
            roots.put(key.substring("feature.".length()), List.copyOf(ids));
        }
        return new Features(p.getProperty("features.version", "0.0.0"), roots);
    }

    /**
     * Returns the root bundles of the named features, in order, without repeats.
     *
     * @throws IllegalArgumentException if a name is not a feature; the message lists the features
     */
    List<String> rootsOf(List<String> names) {
        Map<String, Boolean> ids = new LinkedHashMap<>();
        for (String name : names) {
            List<String> r = roots.get(name);
            if (r == null) {
                throw new IllegalArgumentException("--features: unknown feature '" + name + "'; features: "
                        + String.join(", ", roots.keySet()));
            }
            r.forEach(id -> ids.put(id, true));
        }
        return new ArrayList<>(ids.keySet());
    }
}
