package dev.vantage.benchmarks;

import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

import dev.vantage.profiler.api.Profile;
import dev.vantage.profiler.core.internal.StandaloneProfiler;

/**
 * A benchmark state that may hold a profiler core and an iteration's profile. After each iteration it stops the
 * profile, failing the run if the profile's buffer filled, and runs the collector, in every mode alike; a subclass
 * opens the core and starts the profiles, and closes the core with {@link #closeProfiler()}.
 */
@State(Scope.Thread)
public abstract class ProfiledIterations {

    /** The profiler core, or null in modes without one. */
    StandaloneProfiler core;
    /** The iteration's profile, or null when none records. */
    Profile profile;

    @TearDown(Level.Iteration)
    public void stopProfile() {
        if (profile != null) {
            Recordings.stopChecked(profile);
            profile = null;
        }
        // as in any program that allocates: the collector runs now and then, and the stopped profile's
        // off-heap blocks go back to the pool for the next iteration instead of fresh memory
        System.gc();
    }

    /** Closes the profiler core, if the trial opened one. */
    void closeProfiler() {
        if (core != null) {
            core.close();
        }
    }
}
