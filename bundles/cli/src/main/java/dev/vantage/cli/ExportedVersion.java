package dev.vantage.cli;

import java.util.ArrayList;
import java.util.List;

/**
 * Reads a package's version from an {@code Export-Package} header, by the header grammar of the OSGi core
 * specification (3.2.4): clauses separated by commas, each one or more package names and then parameters separated
 * by semicolons, a parameter {@code key=value} (an attribute, {@code key:Type=value} when typed) or
 * {@code key:=value} (a directive), a value quoted or not; commas and semicolons inside quotes are text.
 */
final class ExportedVersion {

    private ExportedVersion() {
    }

    /** Returns the version attribute of {@code packageName}'s clause, or null when none exports it with one. */
    static String of(String header, String packageName) {
        for (String clause : split(header, ',')) {
            List<String> parts = split(clause, ';');
            boolean names = false;
            String version = null;
            for (String part : parts) {
                int eq = part.indexOf('=');
                if (eq < 0) {
                    names |= part.strip().equals(packageName);
                    continue;
                }
                boolean directive = eq > 0 && part.charAt(eq - 1) == ':';
                String key = part.substring(0, directive ? eq - 1 : eq).strip();
                int typed = key.indexOf(':');
                if (!directive && (typed < 0 ? key : key.substring(0, typed).strip()).equals("version")) {
                    version = unquote(part.substring(eq + 1).strip());
                }
            }
            if (names) {
                return version;
            }
        }
        return null;
    }

    /** Splits at a separator outside double quotes. */
    private static List<String> split(String text, char separator) {
        List<String> parts = new ArrayList<>();
        boolean quoted = false;
        int start = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"') {
                quoted = !quoted;
            } else if (c == separator && !quoted) {
                parts.add(text.substring(start, i));
                start = i + 1;
            }
        }
        parts.add(text.substring(start));
        return parts;
    }

    private static String unquote(String value) {
        return value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")
                ? value.substring(1, value.length() - 1) : value;
    }
}
