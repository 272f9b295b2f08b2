package dev.vantage.cli;

/** How {@code compare} and {@code analyze} print their results. */
public enum OutputFormat {
    /** Aligned columns for a terminal. */
    TABLE,
    /** Comma-separated values with a header row. */
    CSV,
    /** One JSON document, with a published schema. */
    JSON
}
