package dev.vantage.itests;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Set;

import javax.inject.Inject;

import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;

import dev.vantage.profiler.api.Profiler;

/**
 * Boots the {@code minimal} distribution, which has no exporter, and deploys the chrome exporter into it while it
 * runs: through the bundle context and through FileInstall's deploy directory, without restarting anything.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class HotDeployIT {

    private static final Path DEPLOY = Paths.get("target/it-deploy-minimal").toAbsolutePath();

    @Inject
    private BundleContext context;

    @Inject
    private Profiler profiler;

    @Configuration
    public Option[] config() throws IOException {
        return Distributions.options("minimal", DEPLOY);
    }

    @Test
    public void installingAndUninstallingAnExporterBundleAddsAndRemovesItsFormat() throws Exception {
        assertEquals(Set.of(), profiler.exporterFormats());
        Bundle chrome = context.installBundle(Distributions.fullBundle("exporter-chrome-").toUri().toString());
        chrome.start();
        Distributions.await(() -> profiler.exporterFormats().contains("chrome"), "chrome exporter registered");
        assertEquals("1.1.0", profiler.exporters().get(0).version());

        chrome.uninstall();
        Distributions.await(() -> profiler.exporterFormats().isEmpty(), "chrome exporter unregistered");
    }

    @Test
    public void aJarCopiedIntoTheDeployDirectoryIsInstalledAndItsRemovalUninstallsIt() throws Exception {
        Path deployed = DEPLOY.resolve("exporter-chrome.jar");
        Files.copy(Distributions.fullBundle("exporter-chrome-"), deployed, StandardCopyOption.REPLACE_EXISTING);
        try {
            Distributions.await(() -> profiler.exporterFormats().contains("chrome"), "chrome hot-deployed");
            assertTrue(isInstalled("dev.vantage.exporter.chrome"));
        } finally {
            Files.delete(deployed);
        }
        Distributions.await(() -> profiler.exporterFormats().isEmpty(), "chrome hot-undeployed");
        Distributions.await(() -> !isInstalled("dev.vantage.exporter.chrome"), "chrome bundle uninstalled");
    }

    private boolean isInstalled(String symbolicName) {
        for (Bundle b : context.getBundles()) {
            if (symbolicName.equals(b.getSymbolicName())) {
                return true;
            }
        }
        return false;
    }
}
