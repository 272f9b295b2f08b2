package dev.vantage.itests;

import java.nio.file.Path;

/** The agent's tests ({@link AgentTests}) on the JDK the build runs on. */
public class AgentIT extends AgentTests {

    @Override
    Path java() {
        return AppProcess.thisJava();
    }
}
