package dev.vantage.device.onnxruntime.internal;

/** ONNX Runtime's {@code input_type_shape} text in torch's {@code Input Dims} text. */
final class Shapes {

    private Shapes() {
    }

    /**
     * Turns {@code [{"float":[8,128,384]},{"int64":[2]}]} into {@code [[8, 128, 384], [2]]}: each input's dims,
     * without its type. Anything that is not that structure gives the empty string.
     */
    static String torchDims(String ortTypeShape) {
        StringBuilder out = new StringBuilder("[");
        int inputs = 0;
        int i = 0;
        int n = ortTypeShape.length();
        while (i < n) {
            char c = ortTypeShape.charAt(i);
            if (c == '"') {
                // a type name: skip it whole, digits in it ("float16") are no dims
                int close = ortTypeShape.indexOf('"', i + 1);
                if (close < 0) {
                    return "";
                }
                i = close + 1;
                continue;
            }
            if (c == '[' && i > 0) {
                int close = ortTypeShape.indexOf(']', i);
                if (close < 0) {
                    return "";
                }
                out.append(inputs++ == 0 ? "[" : ", [");
                String[] dims = ortTypeShape.substring(i + 1, close).split(",");
                boolean first = true;
                for (String d : dims) {
                    String t = d.trim();
                    if (t.isEmpty()) {
                        continue;
                    }
                    out.append(first ? "" : ", ").append(t);
                    first = false;
                }
                out.append(']');
                i = close + 1;
                continue;
            }
            i++;
        }
        return out.append(']').toString();
    }
}
