package dev.vantage.cli;

import java.util.Map;

import org.osgi.annotation.versioning.ProviderType;

/**
 * The options of one verb, as the command tree parsed them. Implemented by this package's command classes (so a new
 * method is a minor release); a verb's options object is what {@link ParsedCommand#options()} returns.
 */
@ProviderType
public interface Verb {

    /** Returns where the verb runs. */
    Host host();

    /**
     * Checks what picocli's types and ranges cannot: flags that need each other, values that depend on the
     * environment (as {@code RANK} stands in for {@code --rank}). Called once by {@link Cli#parse} after parsing.
     *
     * @param env the environment of the process that will run the verb
     * @throws UsageException naming the flag and value that cannot run
     */
    default void check(Map<String, String> env) throws UsageException {
    }
}
