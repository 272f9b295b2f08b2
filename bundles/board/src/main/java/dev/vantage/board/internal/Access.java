package dev.vantage.board.internal;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Locale;

/**
 * Who the board answers. With an access token (a board on another address than the loopback one, or one given a
 * token), every request must carry it: in the URL's {@code token} parameter, which the board then keeps in a cookie
 * for the page's own requests, or in that cookie. Without one (the default, on 127.0.0.1), the request's
 * {@code Host} must name the loopback address, so that a web page elsewhere cannot reach the board under a name of its
 * own that resolves to 127.0.0.1 (DNS rebinding).
 */
final class Access {

    /** The cookie the token is kept in. */
    static final String COOKIE = "vantage_board_token";

    private final String token;

    /** @param token the token requests must carry, or null for a loopback board without one */
    Access(String token) {
        this.token = token;
    }

    /** Whether requests need the token. */
    boolean needsToken() {
        return token != null;
    }

    /**
     * Returns why a request is refused, or null to answer it.
     *
     * @param hostHeader the request's {@code Host}, or null
     * @param queryToken the {@code token} parameter, or null
     * @param cookieToken the cookie's value, or null
     */
    String refusal(String hostHeader, String queryToken, String cookieToken) {
        if (token != null) {
            return matches(queryToken) || matches(cookieToken) ? null
                    : "this board needs the access token of the URL it printed";
        }
        return isLoopbackName(hostHeader) ? null : "this board answers only requests to 127.0.0.1 or localhost";
    }

    /** Whether the request's URL carried the token, so the cookie should be set. */
    boolean setsCookie(String queryToken) {
        return token != null && matches(queryToken);
    }

    /** The token, for the cookie. */
    String token() {
        return token;
    }

    private boolean matches(String given) {
        return given != null && MessageDigest.isEqual(given.getBytes(StandardCharsets.UTF_8),
                token.getBytes(StandardCharsets.UTF_8));
    }

    /** Whether a {@code Host} header names the loopback address: localhost, 127.x.y.z or [::1], with any port. */
    static boolean isLoopbackName(String host) {
        if (host == null || host.isEmpty()) {
            return false;
        }
        String h = host.toLowerCase(Locale.ROOT);
        if (h.startsWith("[")) {
            int end = h.indexOf(']');
            return end > 0 && h.substring(1, end).equals("::1") && port(h.substring(end + 1));
        }
        int colon = h.lastIndexOf(':');
        String name = colon < 0 ? h : h.substring(0, colon);
        if (colon >= 0 && !port(h.substring(colon))) {
            return false;
        }
        return name.equals("localhost") || name.matches("127\\.\\d{1,3}\\.\\d{1,3}\\.\\d{1,3}");
    }

    private static boolean port(String rest) {
        return rest.isEmpty() || rest.matches(":\\d{1,5}");
    }
}
