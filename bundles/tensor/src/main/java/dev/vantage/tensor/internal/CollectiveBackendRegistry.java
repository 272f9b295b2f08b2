package dev.vantage.tensor.internal;

import java.lang.System.Logger.Level;

import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

import dev.vantage.tensor.distributed.CollectiveBackend;
import dev.vantage.tensor.distributed.CollectiveBackends;

/** Installs every {@link CollectiveBackend} service for its device type while the service is there. */
@Component(service = {}, immediate = true)
public class CollectiveBackendRegistry {

    private static final System.Logger LOG = System.getLogger("dev.vantage.tensor");

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addBackend(CollectiveBackend backend) {
        try {
            CollectiveBackends.install(backend);
        } catch (RuntimeException e) {
            // the device keeps the default host-staging backend
            LOG.log(Level.ERROR, "collective backend " + backend.name() + " not installed: " + e.getMessage(), e);
        }
    }

    void removeBackend(CollectiveBackend backend) {
        CollectiveBackends.uninstall(backend);
    }
}
