package dev.langchain4j.model.embedding.onnx;

import java.util.ArrayList;
import java.util.List;

import dev.langchain4j.model.embedding.EmbeddingModel;

/** A stand-in of LangChain4j's in-process models' base class, for the weaver's tests. */
public abstract class AbstractModel implements EmbeddingModel {

    @Override
    public List<float[]> embedAll(List<String> texts) {
        List<float[]> out = new ArrayList<>();
        for (String t : texts) {
            out.add(new float[] {t.length()});
        }
        return out;
    }
}
