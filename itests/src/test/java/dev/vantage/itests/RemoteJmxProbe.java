package dev.vantage.itests;

import java.util.HashMap;
import java.util.Map;

import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;
import javax.rmi.ssl.SslRMIClientSocketFactory;

/**
 * A remote JMX client of the on-demand profiler, run as a JVM of its own (its trust store is a system property):
 * connects over TLS with a user and password and prints what {@code status()} returns, or the failure.
 * Arguments: port, user, password.
 */
public final class RemoteJmxProbe {

    private RemoteJmxProbe() {
    }

    public static void main(String[] args) throws Exception {
        Map<String, Object> env = new HashMap<>();
        env.put(JMXConnector.CREDENTIALS, new String[] {args[1], args[2]});
        env.put("com.sun.jndi.rmi.factory.socket", new SslRMIClientSocketFactory());
        JMXServiceURL url = new JMXServiceURL("service:jmx:rmi:///jndi/rmi://localhost:" + args[0] + "/jmxrmi");
        try (JMXConnector c = JMXConnectorFactory.connect(url, env)) {
            MBeanServerConnection server = c.getMBeanServerConnection();
            System.out.println(server.invoke(new ObjectName("dev.vantage:type=Profiler"), "status", new Object[0],
                    new String[0]));
        } catch (SecurityException e) {
            System.out.println("refused: " + e.getMessage());
            System.exit(3);
        }
    }
}
