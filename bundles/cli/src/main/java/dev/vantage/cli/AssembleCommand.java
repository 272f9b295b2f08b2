package dev.vantage.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code vantage assemble --features F[,F...] [--add BUNDLE.jar ...] --out DIR}: a distribution of one's own. */
@Command(name = "assemble", description = "build a distribution of chosen features and bundles, resolved offline",
        footer = {"", "The features ('vantage features' lists them) and the added bundles are resolved against the"
                + " full distribution's bundles by bnd's resolver. DIR/vantage starts the new distribution."})
public final class AssembleCommand implements Verb {

    @Option(names = "--features", paramLabel = "F", required = true, split = ",",
            description = "the features, comma-separated")
    private List<String> features;

    @Option(names = "--add", paramLabel = "BUNDLE.jar", converter = Converters.AbsolutePath.class,
            description = "a bundle of one's own to add (repeatable)")
    private List<Path> added = new ArrayList<>();

    @Option(names = "--out", paramLabel = "DIR", required = true, converter = Converters.AbsolutePath.class,
            description = "where to write the distribution: a new or empty directory")
    private Path out;

    @Override
    public Host host() {
        return Host.LAUNCHER;
    }

    /** Returns the features asked for. */
    public List<String> features() {
        return List.copyOf(features);
    }

    /** Returns the bundles to add, absolute. */
    public List<Path> added() {
        return List.copyOf(added);
    }

    /** Returns the target directory, absolute. */
    public Path out() {
        return out;
    }
}
