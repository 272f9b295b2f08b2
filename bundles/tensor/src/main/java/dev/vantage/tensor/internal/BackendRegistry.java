package dev.vantage.tensor.internal;

import java.lang.System.Logger.Level;

import org.osgi.framework.Bundle;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

import dev.vantage.tensor.spi.Backend;

/**
 * Installs the kernels of every {@link Backend} service into the dispatcher when it arrives and removes them when
 * it leaves, so a device bundle can be deployed into, or removed from, a running platform.
 */
@Component(service = {}, immediate = true)
public class BackendRegistry {

    private static final System.Logger LOG = System.getLogger("dev.vantage.tensor");

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addBackend(Backend backend, ServiceReference<Backend> ref) {
        Bundle bundle = ref.getBundle();
        try {
            Dispatcher.install(backend, bundle == null ? "?" : bundle.getSymbolicName(),
                    bundle == null ? "?" : bundle.getVersion().toString());
        } catch (RuntimeException e) {
            // a broken backend must not take the runtime down; its device stays unavailable
            LOG.log(Level.ERROR, "backend " + backend.deviceType() + " not installed: " + e.getMessage(), e);
        }
    }

    void removeBackend(Backend backend) {
        Dispatcher.uninstall(backend);
    }

    /** Leaves no kernel of any backend behind when the runtime's registry goes away. */
    @Deactivate
    void deactivate() {
        Dispatcher.uninstallAll();
    }
}
