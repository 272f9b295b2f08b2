/**
 * The {@code vantage} command line: one command tree with every verb's flags, its generated help and its bash
 * completion, on picocli. {@link dev.vantage.cli.Cli#parse} checks a whole command line (types, ranges, flags that
 * need each other) and returns the verb's options, or a one-line {@link dev.vantage.cli.UsageException}; the code
 * that runs a verb (the launcher, the platform's shell bundle or the analysis library, as
 * {@link dev.vantage.cli.Host} says) reads them from the options object. The package depends on picocli alone, so
 * the launcher can use it before the platform boots.
 */
@Export
@Version("1.2.0")
package dev.vantage.cli;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
