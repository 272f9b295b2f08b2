package dev.langchain4j.model.embedding.onnx;

/** A stand-in of a LangChain4j in-process model, two levels below {@code EmbeddingModel}, for the weaver's tests. */
public class SmallModel extends AbstractModel {
}
