package dev.vantage.board.internal;

import java.io.IOException;

import javax.servlet.http.Cookie;
import javax.servlet.http.HttpServletRequest;
import javax.servlet.http.HttpServletResponse;

import org.osgi.framework.Bundle;
import org.osgi.service.http.context.ServletContextHelper;

/**
 * The board's servlet context: every request passes {@link Access} before a servlet sees it, and every answer
 * carries headers that keep the page to itself (no framing, no sniffing, scripts from the board only, no referrer:
 * the URL may hold the token).
 */
final class BoardContext extends ServletContextHelper {

    private final Access access;

    BoardContext(Bundle bundle, Access access) {
        super(bundle);
        this.access = access;
    }

    @Override
    public boolean handleSecurity(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("Referrer-Policy", "no-referrer");
        response.setHeader("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'"
                + " 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
        String query = request.getParameter("token");
        String cookie = null;
        if (request.getCookies() != null) {
            for (Cookie c : request.getCookies()) {
                if (c.getName().equals(Access.COOKIE)) {
                    cookie = c.getValue();
                }
            }
        }
        String refusal = access.refusal(request.getHeader("Host"), query, cookie);
        if (refusal != null) {
            response.setStatus(HttpServletResponse.SC_FORBIDDEN);
            response.setContentType("text/plain;charset=utf-8");
            response.getWriter().println("403: " + refusal);
            return false;
        }
        if (access.setsCookie(query)) {
            // HttpOnly and SameSite=Strict: the page's own requests carry it, other sites' pages do not
            response.addHeader("Set-Cookie", Access.COOKIE + "=" + access.token()
                    + "; Path=/; HttpOnly; SameSite=Strict");
        }
        return true;
    }
}
