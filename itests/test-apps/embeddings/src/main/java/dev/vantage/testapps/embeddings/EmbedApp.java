package dev.vantage.testapps.embeddings;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

import dev.langchain4j.data.embedding.Embedding;
import dev.langchain4j.model.embedding.EmbeddingModel;
import dev.langchain4j.model.embedding.onnx.allminilml6v2q.AllMiniLmL6V2QuantizedEmbeddingModel;

/**
 * Embeds sentences with LangChain4j's in-process all-MiniLM-L6-v2 (quantized) and prints, per sentence, the first
 * values of its embedding; an application that has never heard of Vantage.
 *
 * <pre>
 * java -DOPT_OUT_TRACKING=true -Dai.djl.offline=true -jar embeddings-app.jar [--rounds N] [--serve-until FILE]
 * </pre>
 *
 * {@code --rounds N} embeds the sentences N times (default 1), one {@code embed} per sentence; {@code --serve-until
 * FILE} keeps embedding them, round after round, until FILE exists, as a service does between requests. Either way
 * the output is the same: the last round's values. On standard error it says when it serves and how many
 * {@code embed} calls it made.
 */
public final class EmbedApp {

    static final List<String> SENTENCES = List.of(
            "Vantage profiles models inside applications that have never heard of it.",
            "The quick brown fox jumps over the lazy dog.",
            "ONNX Runtime runs the model; the tokenizer turns text into token ids.",
            "Embeddings place similar sentences near each other.",
            "A service embeds every request it serves.");

    private EmbedApp() {
    }

    public static void main(String[] args) throws Exception {
        int rounds = 1;
        Path until = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--serve-until" -> until = Path.of(args[++i]);
                default -> throw new IllegalArgumentException("unknown argument " + args[i]);
            }
        }
        EmbeddingModel model = new AllMiniLmL6V2QuantizedEmbeddingModel();
        if (until != null) {
            System.err.println("serving until " + until + " exists");
        }
        float[][] last = new float[SENTENCES.size()][];
        long calls = 0;
        for (int round = 0; round < rounds || until != null && !Files.exists(until); round++) {
            for (int s = 0; s < SENTENCES.size(); s++) {
                Embedding e = model.embed(SENTENCES.get(s)).content();
                last[s] = e.vector();
                calls++;
            }
        }
        for (int s = 0; s < SENTENCES.size(); s++) {
            float[] v = last[s];
            System.out.printf(Locale.ROOT, "%d: dim %d [%.4f, %.4f, %.4f, %.4f]%n", s, v.length, v[0], v[1], v[2],
                    v[3]);
        }
        System.err.println("embed calls: " + calls);
    }
}
