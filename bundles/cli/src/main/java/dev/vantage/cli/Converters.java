package dev.vantage.cli;

import java.math.BigDecimal;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The value types of the command line beyond picocli's own: whole numbers within a range, sizes ({@code 256m}),
 * durations ({@code 500ms}, {@code 2s}), plain file names and paths. Each refusal names the value.
 */
public final class Converters {

    private Converters() {
    }

    /** A whole number from {@code min} to {@code max}. */
    abstract static class Range implements ITypeConverter<Integer> {
        private final long min;
        private final long max;

        Range(long min, long max) {
            this.min = min;
            this.max = max;
        }

        @Override
        public Integer convert(String text) {
            return (int) wholeNumber(text, min, max);
        }
    }

    /** 1 or more. */
    static final class Positive extends Range {
        Positive() {
            super(1, Integer.MAX_VALUE);
        }
    }

    /** The threads of a step: 1 to {@link WorkloadOptions#MAX_THREADS}. */
    static final class Threads implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String text) {
            long n = wholeNumber(text, 1, Integer.MAX_VALUE);
            if (n > WorkloadOptions.MAX_THREADS) {
                throw new TypeConversionException("'" + text + "' is more threads than a run takes (at most "
                        + WorkloadOptions.MAX_THREADS + ": each runs its own batch on a thread of the JVM)");
            }
            return (int) n;
        }
    }

    /** 0 or more. */
    static final class NonNegative extends Range {
        NonNegative() {
            super(0, Integer.MAX_VALUE);
        }
    }

    /** A table row limit: -1 for every row, else 0 or more. */
    static final class RowLimit extends Range {
        RowLimit() {
            super(-1, Integer.MAX_VALUE);
        }
    }

    /** A TCP port. */
    static final class Port extends Range {
        Port() {
            super(1, 65_535);
        }
    }

    /** A process id. */
    static final class Pid implements ITypeConverter<Long> {
        @Override
        public Long convert(String text) {
            return wholeNumber(text, 1, Long.MAX_VALUE);
        }
    }

    /** A constant of an enum, by its name in any case; a refusal lists the names in lower case. */
    abstract static class Choice<E extends Enum<E>> implements ITypeConverter<E> {
        private final Class<E> type;

        Choice(Class<E> type) {
            this.type = type;
        }

        @Override
        public E convert(String text) {
            for (E e : type.getEnumConstants()) {
                if (e.name().equalsIgnoreCase(text.strip())) {
                    return e;
                }
            }
            List<String> names = new ArrayList<>();
            for (E e : type.getEnumConstants()) {
                names.add(lower(e.name()));
            }
            throw new TypeConversionException("'" + text + "' is not one of " + String.join(", ", names));
        }
    }

    /** {@code table}, {@code csv} or {@code json}. */
    static final class Format extends Choice<OutputFormat> {
        Format() {
            super(OutputFormat.class);
        }
    }

    /** A size such as {@code 256m}; see {@link #bytes(String)}. */
    static final class Size implements ITypeConverter<Long> {
        @Override
        public Long convert(String text) {
            return bytes(text);
        }
    }

    /** A duration such as {@code 500ms}; see {@link #millis(String)}. */
    static final class Duration implements ITypeConverter<Long> {
        @Override
        public Long convert(String text) {
            return millis(text);
        }
    }

    /** A plain file name; see {@link #fileName(String)}. */
    static final class FileName implements ITypeConverter<String> {
        @Override
        public String convert(String text) {
            return fileName(text);
        }
    }

    /** A path, made absolute against the working directory. */
    static final class AbsolutePath implements ITypeConverter<Path> {
        @Override
        public Path convert(String text) {
            return path(text).toAbsolutePath().normalize();
        }
    }

    /** A path as given (relative stays relative). */
    static final class GivenPath implements ITypeConverter<Path> {
        @Override
        public Path convert(String text) {
            return path(text);
        }
    }

    /** One {@code --input NAME=DIMS} value: an input's name and its dimensions, each 1 or more. */
    record NamedShape(String name, long[] dims) {
    }

    /** {@code NAME=DIMS} with dimensions separated by {@code x} or {@code ,}, such as {@code input_ids=1x128}. */
    static final class InputShape implements ITypeConverter<NamedShape> {
        private static final Pattern SHAPE = Pattern.compile("([^=]+)=(\\d+(?:[x,]\\d+)*)");

        @Override
        public NamedShape convert(String text) {
            Matcher m = SHAPE.matcher(text);
            if (!m.matches()) {
                throw new TypeConversionException("'" + text + "' is not NAME=DIMS such as input_ids=1x128");
            }
            String[] parts = m.group(2).split("[x,]");
            long[] dims = new long[parts.length];
            for (int d = 0; d < parts.length; d++) {
                try {
                    dims[d] = Long.parseLong(parts[d]);
                } catch (NumberFormatException e) {
                    dims[d] = -1;
                }
                if (dims[d] < 1) {
                    throw new TypeConversionException("'" + text + "': every dimension must be a whole number from 1"
                            + " up");
                }
            }
            return new NamedShape(m.group(1), dims);
        }
    }

    /**
     * Parses a whole number from {@code min} to {@code max}.
     *
     * @throws TypeConversionException naming the text and the range
     */
    static long wholeNumber(String text, long min, long max) {
        long n;
        try {
            n = Long.parseLong(text.trim());
        } catch (NumberFormatException e) {
            throw new TypeConversionException("'" + text + "' is not a whole number" + range(min, max));
        }
        if (n < min || n > max) {
            throw new TypeConversionException("'" + text + "' is out of range" + range(min, max));
        }
        return n;
    }

    private static String range(long min, long max) {
        if (max == Integer.MAX_VALUE || max == Long.MAX_VALUE) {
            return " (" + min + " or more)";
        }
        return " (" + min + " to " + max + ")";
    }

    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*(?:([kmgt])(?:i?b)?|b)?",
            Pattern.CASE_INSENSITIVE);

    /**
     * Parses a size as users write one: bytes, or a number with a unit k, m, g or t (also kb, kib, mb, ...; all
     * binary), such as {@code 256m} or {@code 1.5g}.
     *
     * @throws TypeConversionException for anything else, or a size under one byte or of 8 EiB or more
     */
    public static long bytes(String text) {
        Matcher m = SIZE.matcher(text.trim());
        if (!m.matches()) {
            throw new TypeConversionException("'" + text + "' is not a size such as 256m or 2g");
        }
        int shift = m.group(2) == null ? 0
                : 10 * ("kmgt".indexOf(Character.toLowerCase(m.group(2).charAt(0))) + 1);
        double bytes = Double.parseDouble(m.group(1)) * Math.pow(2, shift);
        if (bytes < 1 || bytes >= Long.MAX_VALUE) {
            throw new TypeConversionException("'" + text + "' is not at least one byte and less than 8 EiB");
        }
        return (long) bytes;
    }

    private static final Pattern DURATION = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m)");

    /**
     * Parses a duration such as {@code 500ms}, {@code 2s}, {@code 1.5s} or {@code 1m} into milliseconds.
     *
     * @throws TypeConversionException if the text is not a number with one of those units, is zero, is not a
     *     whole number of milliseconds, or does not fit in a {@code long}
     */
    public static long millis(String text) {
        Matcher m = DURATION.matcher(text.trim());
        if (!m.matches()) {
            throw new TypeConversionException("'" + text + "' is not a time such as 500ms, 2s, 1.5s or 1m");
        }
        int factor = switch (m.group(2)) {
            case "ms" -> 1;
            case "s" -> 1_000;
            default -> 60_000;
        };
        BigDecimal millis = new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(factor));
        if (millis.signum() <= 0) {
            throw new TypeConversionException("'" + text + "' is not more than zero");
        }
        if (millis.stripTrailingZeros().scale() > 0) {
            throw new TypeConversionException("'" + text + "' is not a whole number of milliseconds");
        }
        try {
            return millis.longValueExact();
        } catch (ArithmeticException e) {
            throw new TypeConversionException("'" + text + "' is too long");
        }
    }

    /**
     * Checks a plain file name: not empty, no {@code /}, {@code \} or {@code ..}, no control characters.
     *
     * @throws TypeConversionException for anything else
     */
    public static String fileName(String text) {
        if (text.isEmpty() || text.contains("/") || text.contains("\\") || text.contains("..")
                || text.chars().anyMatch(Character::isISOControl)) {
            throw new TypeConversionException("'" + text + "' is not a plain file name (no '/', '\\' or '..')");
        }
        return text;
    }

    static Path path(String text) {
        try {
            if (text.isEmpty()) {
                throw new InvalidPathException(text, "empty");
            }
            return Path.of(text);
        } catch (InvalidPathException e) {
            throw new TypeConversionException("'" + text + "' is not a path (" + e.getReason() + ")");
        }
    }

    static String lower(String text) {
        return text.toLowerCase(Locale.ROOT);
    }
}
