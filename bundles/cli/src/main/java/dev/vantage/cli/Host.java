package dev.vantage.cli;

/** Where a verb runs, which decides whether the launcher boots the platform for it. */
public enum Host {
    /** In the launcher's JVM, without the platform: {@code features}, {@code assemble}, {@code profile}, ... */
    LAUNCHER,
    /** In the analysis library the distribution carries in {@code lib/analysis/}, without the platform. */
    ANALYSIS,
    /** In the booted platform's verbs bundle, which stops the platform when the verb ends: {@code run}, ... */
    PLATFORM,
    /** In the booted platform, which then keeps running until stopped: {@code serve} and {@code shell}. */
    SERVICE
}
