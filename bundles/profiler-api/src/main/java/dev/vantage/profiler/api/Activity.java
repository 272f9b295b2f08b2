package dev.vantage.profiler.api;

import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * What a profile records, as in {@code torch.profiler.ProfilerActivity}: CPU ops and annotations, the activity of
 * one kind of device, or memory events.
 *
 * <p>The set is open: a device bundle built outside this repository names its own activity with {@link #of(String)}
 * (an upper-case identifier, {@code ACME} say) and returns it from its activity source; a profile may then ask for
 * it by that name. The built-in activities are the constants below. Two activities are equal when their names
 * are.
 */
public final class Activity implements Comparable<Activity> {

    private static final Pattern NAME = Pattern.compile("[A-Z][A-Z0-9_]{0,31}");

    /** Ops dispatched on host threads and user annotations. */
    public static final Activity CPU = new Activity("CPU");
    /** Kernels, copies and runtime calls of NPU devices. */
    public static final Activity NPU = new Activity("NPU");
    /** Kernels, copies and runtime calls of Spyre devices (the PrivateUse1 backend). */
    public static final Activity SPYRE = new Activity("SPYRE");
    /** Command buffers and kernels of MPS devices. */
    public static final Activity MPS = new Activity("MPS");
    /** Allocator events of every device. */
    public static final Activity MEM = new Activity("MEM");

    private static final List<Activity> BUILT_IN = List.of(CPU, NPU, SPYRE, MPS, MEM);

    private final String name;

    private Activity(String name) {
        this.name = name;
    }

    /**
     * Returns the activity of that name, ignoring case: a built-in constant, or a device bundle's own activity.
     *
     * @param name one to 32 letters, digits or underscores, starting with a letter, such as {@code npu} or
     *     {@code ACME}; not null
     * @return the activity
     * @throws IllegalArgumentException if the name is not such an identifier; the message names the value
     */
    public static Activity of(String name) {
        Objects.requireNonNull(name, "name");
        String upper = name.trim().toUpperCase(Locale.ROOT);
        if (!NAME.matcher(upper).matches()) {
            throw new IllegalArgumentException("not an activity name: '" + name
                    + "' (a letter, then up to 31 letters, digits or underscores, as CPU, NPU or MEM)");
        }
        for (Activity a : BUILT_IN) {
            if (a.name.equals(upper)) {
                return a;
            }
        }
        return new Activity(upper);
    }

    /**
     * Parses an activity name, ignoring case; the same as {@link #of(String)}. Whether a profile can record the
     * activity is for {@link Profiler#availableActivities()} to say.
     *
     * @param name an activity name such as {@code cpu} or {@code NPU}; not null
     * @return the activity
     * @throws IllegalArgumentException if the text is not an activity name
     */
    public static Activity parse(String name) {
        return of(name);
    }

    /** Returns the activities this API defines, in their documented order. */
    public static List<Activity> builtIns() {
        return BUILT_IN;
    }

    /** Returns the name, upper case, as a user writes it in {@code --profile-activities}. */
    public String name() {
        return name;
    }

    /** Returns whether this activity is one of {@link #builtIns()}. */
    public boolean isBuiltIn() {
        return BUILT_IN.contains(this);
    }

    /** Built-in activities first, in their documented order, then the others by name. */
    @Override
    public int compareTo(Activity other) {
        int a = BUILT_IN.indexOf(this);
        int b = BUILT_IN.indexOf(other);
        if (a >= 0 || b >= 0) {
            return Integer.compare(a < 0 ? Integer.MAX_VALUE : a, b < 0 ? Integer.MAX_VALUE : b);
        }
        return name.compareTo(other.name);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Activity a && a.name.equals(name);
    }

    @Override
    public int hashCode() {
        return name.hashCode();
    }

    @Override
    public String toString() {
        return name;
    }
}
