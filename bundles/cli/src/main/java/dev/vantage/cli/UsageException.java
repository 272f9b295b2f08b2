package dev.vantage.cli;

/**
 * A command line that cannot run, refused before any work: its message is one line that names the bad verb, flag
 * or value, and the process exits with code 2. A value with a line break or another control character in it is
 * named with the character escaped (a line break as backslash-n), so the message stays one line.
 */
public final class UsageException extends Exception {

    private static final long serialVersionUID = 1L;

    /**
     * @param message one line naming the bad input; not null
     */
    public UsageException(String message) {
        super(oneLine(message), null, false, false);
    }

    private static String oneLine(String message) {
        StringBuilder b = new StringBuilder(message.length());
        for (int i = 0; i < message.length(); i++) {
            char c = message.charAt(i);
            switch (c) {
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> b.append(Character.isISOControl(c) ? String.format("\\u%04x", (int) c) : c);
            }
        }
        return b.toString();
    }
}
