package dev.vantage.itests;

import static org.junit.Assume.assumeTrue;

import java.nio.file.Path;

/**
 * The agent's tests ({@link AgentTests}) on the newest JDK under {@code /usr/lib/jvm} newer than the build's, when
 * the machine has one (services run on 21 and 25); skipped, and said so, when it has none.
 */
public class AgentNewerJdkIT extends AgentTests {

    @Override
    Path java() throws Exception {
        Path newer = AppProcess.newerJava();
        assumeTrue("no JDK newer than " + Runtime.version().feature() + " under /usr/lib/jvm", newer != null);
        return newer;
    }
}
