package dev.vantage.ondemand.internal;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

import com.code_intelligence.jazzer.junit.FuzzTest;

import org.apache.felix.fileinstall.shaded.util.properties.TypedProperties;

import dev.vantage.fuzz.Refusals;
import dev.vantage.profiler.api.CaptureRequest;

/**
 * Fuzzes the on-demand {@code .cfg} file ({@code dev.vantage.profiler.ondemand.cfg} dropped into the deploy directory):
 * read by FileInstall's own reader into typed properties, as FileInstall hands them to Configuration Admin, then into
 * a capture request ({@link CaptureConfig#config}). A file FileInstall's reader refuses never reaches the bundle, so
 * it is no finding here. In this package because the reader is the bundle's internal class. Seeds: the files of
 * docs/on-demand.md, Kineto's keys among them.
 *
 * <p>Refusal: an {@code IllegalArgumentException} in one line (the bundle logs it as the capture that did not
 * start); anything else is a finding.
 */
class OnDemandCfgFuzzTest {

    // mvn verify: this many executions from a fixed seed, a few seconds here (docs/fuzzing.md); .ci/fuzz: unbounded
    @FuzzTest(maxExecutions = 60000)
    void requestsOrRefusesInOneLine(byte[] content) {
        TypedProperties file = new TypedProperties();
        try (Reader in = new InputStreamReader(new ByteArrayInputStream(content), StandardCharsets.UTF_8)) {
            file.load(in);
        } catch (IOException | RuntimeException e) {
            return;
        }
        Map<String, Object> properties = new LinkedHashMap<>();
        for (String key : file.keySet()) {
            properties.put(key, file.get(key));
        }
        properties.put("felix.fileinstall.filename", "file:/deploy/dev.vantage.profiler.ondemand.cfg");
        try {
            CaptureRequest request = CaptureConfig.config(properties, "/deploy/dev.vantage.profiler.ondemand.cfg");
            if (request == null) {
                throw new AssertionError("no request and no refusal");
            }
        } catch (IllegalArgumentException e) {
            Refusals.expect(e, IllegalArgumentException.class, "");
        }
    }
}
