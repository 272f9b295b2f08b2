package dev.vantage.verbs.internal;

import java.io.PrintStream;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceEvent;
import org.osgi.framework.ServiceListener;
import org.osgi.framework.ServiceReference;

import dev.vantage.profiler.spi.DeviceActivitySource;
import dev.vantage.profiler.dispatch.DispatchHook;
import dev.vantage.profiler.spi.MemoryAllocator;
import dev.vantage.profiler.spi.TraceExporter;
import dev.vantage.tensor.spi.Backend;

/**
 * Prints one line whenever a plugin service registers or unregisters, so a person watching {@code vantage serve}
 * sees hot deploy happen: {@code exporter registered: csv (dev.vantage.exporter.csv 1.0.0)}. Covers the four
 * profiler SPIs (hook, device, allocator, exporter) and tensor backends. Names are read once, at registration.
 */
final class ServiceAnnouncer implements ServiceListener {

    private static final Map<String, String> KINDS = Map.of(
            DispatchHook.class.getName(), "hook",
            DeviceActivitySource.class.getName(), "device",
            MemoryAllocator.class.getName(), "allocator",
            TraceExporter.class.getName(), "exporter",
            Backend.class.getName(), "backend");

    private final BundleContext context;
    private final PrintStream out;
    private final Map<Long, String> announced = new ConcurrentHashMap<>();

    ServiceAnnouncer(BundleContext context, PrintStream out) {
        this.context = context;
        this.out = out;
    }

    /** Starts listening and announces the services already registered. */
    void open() {
        StringBuilder filter = new StringBuilder("(|");
        KINDS.keySet().forEach(c -> filter.append('(').append(Constants.OBJECTCLASS).append('=').append(c).append(')'));
        filter.append(')');
        try {
            context.addServiceListener(this, filter.toString());
            ServiceReference<?>[] existing = context.getAllServiceReferences(null, filter.toString());
            if (existing != null) {
                for (ServiceReference<?> ref : existing) {
                    registered(ref);
                }
            }
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException("bad service filter " + filter, e);
        }
    }

    void close() {
        context.removeServiceListener(this);
    }

    @Override
    public void serviceChanged(ServiceEvent event) {
        switch (event.getType()) {
            case ServiceEvent.REGISTERED -> registered(event.getServiceReference());
            case ServiceEvent.UNREGISTERING -> {
                String line = announced.remove(serviceId(event.getServiceReference()));
                if (line != null) {
                    out.println(line.replace(" registered: ", " unregistered: "));
                }
            }
            default -> {
            }
        }
    }

    private void registered(ServiceReference<?> ref) {
        long id = serviceId(ref);
        if (announced.containsKey(id)) {
            return;
        }
        for (String objectClass : (String[]) ref.getProperty(Constants.OBJECTCLASS)) {
            String kind = KINDS.get(objectClass);
            if (kind != null) {
                String line = kind + " registered: " + name(ref) + " (" + bundle(ref) + ")";
                if (announced.putIfAbsent(id, line) == null) {
                    out.println(line);
                }
                return;
            }
        }
    }

    private static long serviceId(ServiceReference<?> ref) {
        return (Long) ref.getProperty(Constants.SERVICE_ID);
    }

    private String name(ServiceReference<?> ref) {
        Object service = context.getService(ref);
        try {
            if (service instanceof TraceExporter e) {
                return e.format();
            } else if (service instanceof DeviceActivitySource s) {
                return s.deviceType();
            } else if (service instanceof MemoryAllocator a) {
                return a.device();
            } else if (service instanceof Backend b) {
                return b.deviceType();
            } else if (service != null) {
                return service.getClass().getSimpleName();
            }
            return "service " + serviceId(ref);
        } catch (RuntimeException e) {
            return "service " + serviceId(ref) + " (failed to name itself: " + e + ")";
        } finally {
            if (service != null) {
                context.ungetService(ref);
            }
        }
    }

    private static String bundle(ServiceReference<?> ref) {
        Bundle b = ref.getBundle();
        return b == null ? "?" : b.getSymbolicName() + " " + b.getVersion();
    }
}
