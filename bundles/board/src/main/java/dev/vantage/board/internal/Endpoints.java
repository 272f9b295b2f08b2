package dev.vantage.board.internal;

import java.net.URI;

/** Reads the port the HTTP service listens on from its runtime's {@code osgi.http.endpoint} property. */
final class Endpoints {

    private Endpoints() {
    }

    /** The first endpoint's port, or null when there is none yet. */
    static Integer port(Object endpoint) {
        String first = endpoint instanceof String[] all ? (all.length == 0 ? null : all[0])
                : endpoint instanceof java.util.Collection<?> c ? (c.isEmpty() ? null : String.valueOf(c.iterator()
                        .next()))
                : endpoint == null ? null : endpoint.toString();
        if (first == null || first.isBlank()) {
            return null;
        }
        try {
            int port = URI.create(first.trim()).getPort();
            return port > 0 ? port : null;
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
