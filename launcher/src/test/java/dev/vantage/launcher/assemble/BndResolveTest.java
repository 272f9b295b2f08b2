package dev.vantage.launcher.assemble;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

/** The resolver's message, as bnd words it, becomes one line naming the bundle and what it misses. */
public class BndResolveTest {

    @Test
    public void theInnermostMissingRequirementIsNamedInWords() {
        String bnd = "org.osgi.service.resolver.ResolutionException: Unable to resolve <<INITIAL>>: missing"
                + " requirement osgi.identity;filter:='(osgi.identity=com.acme.device)' [caused by: Unable to"
                + " resolve com.acme.device version=0.1.0: missing requirement osgi.wiring.package;filter:='(&"
                + "(osgi.wiring.package=dev.vantage.device.kit.emulation)(version>=1.1.0)(!(version>=2.0.0)))';"
                + "osgi.wiring.package='dev.vantage.device.kit.emulation']";
        assertEquals("com.acme.device 0.1.0 needs package dev.vantage.device.kit.emulation [1.1.0,2.0.0)",
                BndResolve.describe(bnd));
        assertEquals("com.acme.x 1.0.0 needs service dev.vantage.tensor.spi.HostKernels",
                BndResolve.describe("Unable to resolve com.acme.x version=1.0.0: missing requirement"
                        + " osgi.service;filter:='(objectClass=dev.vantage.tensor.spi.HostKernels)'"));
    }
}
