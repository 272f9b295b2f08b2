package dev.vantage.analysis.trace;

import java.io.IOException;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;

/** The {@code args} of one event that the reader uses; one instance is reused for every event. */
final class EventArgs {

    long externalId;
    int device;
    int deviceType;
    int deviceId;
    long totalAllocated;
    long totalReserved;
    boolean collective;
    private final StringBuilder shapes = new StringBuilder();

    EventArgs clear() {
        externalId = Long.MIN_VALUE;
        device = -1;
        deviceType = Integer.MIN_VALUE;
        deviceId = -1;
        totalAllocated = 0;
        totalReserved = 0;
        collective = false;
        shapes.setLength(0);
        return this;
    }

    /** The input shapes in torch_npu's notation: dims joined by commas, inputs by semicolons. */
    String shapes() {
        return shapes.toString();
    }

    /** Reads the args object; the parser is on its {@code START_OBJECT} and is left on its {@code END_OBJECT}. */
    void read(JsonParser p) throws IOException {
        while (p.nextToken() == JsonToken.FIELD_NAME) {
            String field = p.currentName();
            JsonToken value = p.nextToken();
            switch (field) {
                case "External id", "external id" -> externalId = value.isNumeric() ? p.getLongValue() : Long.MIN_VALUE;
                case "device" -> device = value.isNumeric() ? p.getIntValue() : -1;
                case "Device Type" -> deviceType = value.isNumeric() ? p.getIntValue() : Integer.MIN_VALUE;
                case "Device Id" -> deviceId = value.isNumeric() ? p.getIntValue() : -1;
                case "Total Allocated" -> totalAllocated = p.getValueAsLong();
                case "Total Reserved" -> totalReserved = p.getValueAsLong();
                case "Collective name" -> {
                    collective = true;
                    p.skipChildren();
                }
                case "Input Dims", "Input dims" -> {
                    if (value == JsonToken.START_ARRAY && shapes.length() == 0) {
                        inputDims(p);
                    } else {
                        p.skipChildren();
                    }
                }
                default -> p.skipChildren();
            }
        }
    }

    private void inputDims(JsonParser p) throws IOException {
        int input = 0;
        JsonToken token;
        while ((token = p.nextToken()) != JsonToken.END_ARRAY) {
            if (input++ > 0) {
                shapes.append(';');
            }
            if (token == JsonToken.START_ARRAY) {
                list(p);
            } else {
                p.skipChildren();
            }
        }
    }

    /** The dims of one input; a nested list (a tensor list's shapes) in brackets. */
    private void list(JsonParser p) throws IOException {
        int i = 0;
        JsonToken token;
        while ((token = p.nextToken()) != JsonToken.END_ARRAY) {
            if (i++ > 0) {
                shapes.append(',');
            }
            if (token == JsonToken.START_ARRAY) {
                shapes.append('[');
                list(p);
                shapes.append(']');
            } else if (token.isScalarValue()) {
                shapes.append(p.getText());
            } else {
                p.skipChildren();
            }
        }
    }
}
