package dev.vantage.device.onnxruntime;

import java.util.Locale;

/**
 * torch's names of ONNX Runtime's element types, as the device writes them in an {@code ort::run}'s
 * {@code Input type}: {@code FLOAT} is {@code float}, {@code INT64} is {@code long}, and so on.
 */
public final class OrtTypes {

    private OrtTypes() {
    }

    /**
     * Returns torch's name of an element type ONNX Runtime names.
     *
     * @param onnxJavaType the name of an {@code ai.onnxruntime.OnnxJavaType} constant, of any ONNX Runtime version
     * @return torch's name; a type torch has no name for in lower case; empty for null or empty
     */
    public static String torchName(String onnxJavaType) {
        if (onnxJavaType == null) {
            return "";
        }
        return switch (onnxJavaType) {
            case "FLOAT" -> "float";
            case "DOUBLE" -> "double";
            case "INT64" -> "long";
            case "INT32" -> "int";
            case "INT16" -> "short";
            case "INT8" -> "signed char";
            case "UINT8" -> "unsigned char";
            case "BOOL" -> "bool";
            case "FLOAT16" -> "c10::Half";
            case "BFLOAT16" -> "c10::BFloat16";
            case "STRING" -> "string";
            default -> onnxJavaType.toLowerCase(Locale.ROOT);
        };
    }
}
