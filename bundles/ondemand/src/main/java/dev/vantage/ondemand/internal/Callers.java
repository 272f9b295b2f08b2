package dev.vantage.ondemand.internal;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.lang.reflect.Method;
import java.rmi.server.RemoteServer;
import java.rmi.server.ServerNotActiveException;
import java.security.AccessController;
import java.security.Principal;

import javax.security.auth.Subject;

/**
 * What the platform itself can tell about who called the profiler MBean, written as a capture's
 * {@code requested_by} before anything the caller says of itself. A JMX call over RMI runs on the connection's
 * thread, which knows the client's host ({@link RemoteServer#getClientHost()}), and under the subject the
 * connector authenticated, if any (the remote port's password file). A call on the local management agent, which
 * {@code vantage profile} uses, is unauthenticated, but its address is handed out only through the JDK Attach API,
 * which lets only the platform's own OS user (and root) attach; a call that is not over RMI at all comes from code
 * inside the platform.
 */
final class Callers {

    /**
     * {@code Subject.current()}, on JDKs that have it (18 and later): from 24 on, the only way to the subject the
     * JMX connector runs a call under, {@code Subject.getSubject} throwing {@code UnsupportedOperationException}
     * there. Null on 17.
     */
    private static final Method CURRENT_SUBJECT = currentSubject();

    private Callers() {
    }

    private static Method currentSubject() {
        try {
            return Subject.class.getMethod("current");
        } catch (NoSuchMethodException e) {
            return null;
        }
    }

    /** The subject the calling thread runs under, or null. */
    @SuppressWarnings("removal")   // Subject.getSubject: JDK 17's way to the JMX connector's subject
    private static Subject subject() {
        if (CURRENT_SUBJECT != null) {
            try {
                return (Subject) CURRENT_SUBJECT.invoke(null);
            } catch (ReflectiveOperationException e) {
                return null;
            }
        }
        return Subject.getSubject(AccessController.getContext());
    }

    /** Describes the caller of the MBean operation running on this thread. */
    static String current() {
        String host;
        try {
            host = RemoteServer.getClientHost();
        } catch (ServerNotActiveException e) {
            return "a caller inside the platform (JMX, not over a connection)";
        }
        Subject subject = subject();
        String user = subject == null ? null : subject.getPrincipals().stream().map(Principal::getName).sorted()
                .findFirst().orElse(null);
        if (user != null) {
            return "JMX user " + user + " from " + host;
        }
        if (loopback(host)) {
            String owner = System.getProperty("user.name");
            return "an attached client from " + host + " (unauthenticated: only " + ("root".equals(owner) ? ""
                    : "user " + owner + " or ") + "root can attach)";
        }
        return "an unauthenticated JMX client from " + host;
    }

    private static boolean loopback(String host) {
        try {
            InetAddress a = InetAddress.getByName(host);
            return a.isLoopbackAddress() || java.net.NetworkInterface.getByInetAddress(a) != null;
        } catch (UnknownHostException | java.net.SocketException e) {
            return false;
        }
    }
}
