package dev.vantage.analysis;

import java.util.ArrayList;
import java.util.List;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;

/**
 * The JSON Schemas this module publishes, read from the class path by their {@code $id} and applied by networknt's
 * validator (draft 2020-12), for tests that check real output against them.
 */
public final class PublishedSchemas {

    private static final String PREFIX = "https://vantage.dev/schemas/";
    private static final SchemaRegistry REGISTRY = SchemaRegistry.withDefaultDialect(
            SpecificationVersion.DRAFT_2020_12,
            b -> b.schemaIdResolvers(r -> r.mapPrefix(PREFIX, "classpath:dev/vantage/analysis/schemas/")));

    private PublishedSchemas() {
    }

    /** Returns what is wrong with a document under a schema ({@code compare.schema.json}), empty when valid. */
    public static List<String> errors(String schema, JsonNode document) {
        List<String> messages = new ArrayList<>();
        for (Error e : REGISTRY.getSchema(SchemaLocation.of(PREFIX + schema)).validate(document.toString(),
                InputFormat.JSON)) {
            messages.add(e.getInstanceLocation() + ": " + e.getMessage());
        }
        return messages;
    }
}
