package dev.vantage.ondemand.internal;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.lang.management.ManagementFactory;
import java.rmi.registry.LocateRegistry;
import java.util.HashMap;
import java.util.Map;

import javax.management.JMX;
import javax.management.MBeanServer;
import javax.management.MBeanServerFactory;
import javax.management.ObjectName;
import javax.management.remote.JMXAuthenticator;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXConnectorServerFactory;
import javax.management.remote.JMXPrincipal;
import javax.management.remote.JMXServiceURL;
import javax.security.auth.Subject;

import org.junit.Test;

/**
 * What the platform writes as a capture's {@code requested_by} comes from the JMX connection the call arrived on,
 * not from the caller's options: its host, and its authenticated user where the connector authenticates.
 */
public class CallersTest {

    /** An MBean that answers what the platform sees of its caller. */
    public interface WhoMXBean {
        String who();
    }

    @Test
    public void aCallInsideThePlatformIsNamedSo() {
        assertEquals("a caller inside the platform (JMX, not over a connection)", Callers.current());
        assertTrue(ManagementFactory.getPlatformMBeanServer() != null);
    }

    @Test
    public void aCallOverAConnectionIsNamedByItsHostAndItsAuthenticatedUser() throws Exception {
        MBeanServer server = MBeanServerFactory.newMBeanServer();
        ObjectName name = new ObjectName("test:type=Who");
        server.registerMBean((WhoMXBean) Callers::current, name);
        String owner = System.getProperty("user.name");
        try {
            // the platform's owner and root may attach; a platform root runs says root once
            System.setProperty("user.name", "alice");
            assertEquals("an attached client from 127.0.0.1 (unauthenticated: only user alice or root can attach)",
                    callOver(server, name, null));
            System.setProperty("user.name", "root");
            assertEquals("an attached client from 127.0.0.1 (unauthenticated: only root can attach)",
                    callOver(server, name, null));
        } finally {
            System.setProperty("user.name", owner);
        }
        // a connector that authenticates (the remote port's password file): the user it authenticated
        JMXAuthenticator anyone = credentials -> {
            String[] userAndPassword = (String[]) credentials;
            Subject s = new Subject();
            s.getPrincipals().add(new JMXPrincipal(userAndPassword[0]));
            return s;
        };
        assertEquals("JMX user alice from 127.0.0.1", callOver(server, name, anyone));
    }

    private static String callOver(MBeanServer server, ObjectName name, JMXAuthenticator authenticator)
            throws Exception {
        int port;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            port = s.getLocalPort();
        }
        LocateRegistry.createRegistry(port);
        Map<String, Object> env = new HashMap<>();
        if (authenticator != null) {
            env.put(JMXConnectorServer.AUTHENTICATOR, authenticator);
        }
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://127.0.0.1:" + port + "/jmxrmi");
        JMXConnectorServer connector = JMXConnectorServerFactory.newJMXConnectorServer(url, env, server);
        connector.start();
        try {
            Map<String, Object> client = new HashMap<>();
            if (authenticator != null) {
                client.put(JMXConnector.CREDENTIALS, new String[] {"alice", "secret"});
            }
            try (JMXConnector c = JMXConnectorFactory.connect(url, client)) {
                return JMX.newMXBeanProxy(c.getMBeanServerConnection(), name, WhoMXBean.class).who();
            }
        } finally {
            connector.stop();
        }
    }
}
