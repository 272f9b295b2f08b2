package dev.vantage.shell.internal;

/** A command line that cannot run as given: an unknown verb, flag or value. Exit code 2. */
final class UsageException extends Exception {

    UsageException(String message) {
        super(message);
    }
}
