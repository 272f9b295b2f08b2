package dev.langchain4j.model.embedding;

import java.util.List;

/** A stand-in with the shape of LangChain4j's {@code EmbeddingModel}, for the weaver's tests. Not LangChain4j. */
public interface EmbeddingModel {

    default float[] embed(String text) {
        return embedAll(List.of(text)).get(0);
    }

    List<float[]> embedAll(List<String> texts);
}
