package dev.vantage.ondemand.internal;

import java.lang.System.Logger.Level;
import java.util.Map;

import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;

import dev.vantage.profiler.api.OnDemandProfiler;

/**
 * A capture triggered by a file, as Kineto's on-demand configuration: dropping
 * {@code dev.vantage.profiler.ondemand.cfg} into the deploy directory (FileInstall hands it to Configuration Admin)
 * starts one capture with its keys; changing the file starts another. What happens is logged in one line: the
 * capture's window and where its traces go, or why it did not start; when it ends, the on-demand profiler logs
 * the files written.
 */
@Component(configurationPid = "dev.vantage.profiler.ondemand", configurationPolicy = ConfigurationPolicy.REQUIRE,
        immediate = true, service = {})
public class OnDemandConfig {

    private static final System.Logger LOG = System.getLogger("dev.vantage.profiler.ondemand");

    @Reference
    private OnDemandProfiler onDemand;

    @Activate
    @Modified
    void trigger(Map<String, Object> properties) {
        String file = String.valueOf(properties.getOrDefault("felix.fileinstall.filename", "configuration "
                + properties.get("service.pid"))).replaceFirst("^file:", "");
        try {
            String started = onDemand.start(CaptureConfig.config(properties, String.valueOf(file)));
            LOG.log(Level.INFO, "on-demand capture from " + file + ": " + started.replace('\n', ';'));
        } catch (RuntimeException e) {
            // one line whatever went wrong: a component that throws would have the runtime print its stack trace
            LOG.log(Level.WARNING, "on-demand capture from " + file + " did not start: " + (e.getMessage() != null
                    && (e instanceof IllegalArgumentException || e instanceof IllegalStateException) ? e.getMessage()
                    : e.toString()));
        }
    }
}
