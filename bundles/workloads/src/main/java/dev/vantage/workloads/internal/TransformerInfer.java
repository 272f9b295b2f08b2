package dev.vantage.workloads.internal;

import java.util.SplittableRandom;

import java.util.EnumSet;
import java.util.Set;

import org.osgi.service.component.annotations.Component;

import dev.vantage.tensor.Device;
import dev.vantage.tensor.GradMode;
import dev.vantage.tensor.Tensor;
import dev.vantage.tensor.TensorScope;
import dev.vantage.tensor.nn.Attention;
import dev.vantage.tensor.nn.Embedding;
import dev.vantage.tensor.nn.LayerNorm;
import dev.vantage.tensor.nn.Layers;
import dev.vantage.tensor.nn.Linear;
import dev.vantage.tensor.nn.Module;
import dev.vantage.tensor.workload.RunFlag;
import dev.vantage.tensor.workload.Workload;
import dev.vantage.tensor.workload.WorkloadContext;

/**
 * Greedy generation with a one-block decoder (token and position embeddings, causal self-attention, layer norms,
 * a GELU MLP, a vocabulary head): one new token per sequence per step, the whole context re-run each step, as a
 * model without a key-value cache does.
 */
@Component(service = Workload.class)
public class TransformerInfer implements Workload {

    static final int VOCAB = 512;
    static final int WIDTH = 128;
    static final int HEADS = 4;
    static final int CONTEXT = 64;
    static final int PROMPT = 8;
    static final int DEFAULT_BATCH = 4;

    @Override
    public String name() {
        return "transformer-infer";
    }

    @Override
    public String description() {
        return "generates tokens with one decoder block (embedding, attention, layer norm, MLP), greedy";
    }

    @Override
    public Set<RunFlag> flags() {
        return EnumSet.of(RunFlag.BATCH_SIZE);
    }

    /** A full context's embeddings and logits for every sequence of the batch. */
    @Override
    public long minimumHeapBytes(int batchSize, int threads) {
        return Inputs.heapBytes(batchSize > 0 ? batchSize : DEFAULT_BATCH, 1, CONTEXT * WIDTH, CONTEXT * VOCAB);
    }

    /** Token ids {@code [B, T]} to logits {@code [B, T, VOCAB]}. */
    static final class Decoder extends Module {
        private final Embedding tokens;
        private final Embedding positions;
        private final LayerNorm norm1;
        private final Attention attention;
        private final LayerNorm norm2;
        private final Linear up;
        private final Module gelu = Layers.gelu();
        private final Linear down;
        private final Module dropout;
        private final LayerNorm normOut;
        private final Linear head;

        Decoder(long seed) {
            tokens = register("tok_emb", new Embedding(VOCAB, WIDTH, seed));
            positions = register("pos_emb", new Embedding(CONTEXT, WIDTH, seed + 1));
            norm1 = register("ln1", new LayerNorm(WIDTH));
            attention = register("attn", new Attention(WIDTH, HEADS, true, seed + 2));
            norm2 = register("ln2", new LayerNorm(WIDTH));
            up = register("fc1", new Linear(WIDTH, 4 * WIDTH, true, seed + 10));
            down = register("fc2", new Linear(4 * WIDTH, WIDTH, true, seed + 20));
            dropout = register("drop", Layers.dropout(0.1, seed + 30));
            normOut = register("ln_f", new LayerNorm(WIDTH));
            head = register("head", new Linear(WIDTH, VOCAB, false, seed + 40));
        }

        @Override
        public Tensor forward(Tensor ids) {
            int t = ids.size(1);
            Tensor x = tokens.forward(ids).add(positions.forward(Tensor.arange(t).to(ids.device())));
            x = x.add(dropout.forward(attention.forward(norm1.forward(x))));
            x = x.add(dropout.forward(down.forward(gelu.forward(up.forward(norm2.forward(x))))));
            return head.forward(normOut.forward(x));
        }
    }

    @Override
    public void run(WorkloadContext context) {
        if (!context.optimizer().isEmpty()) {
            throw new IllegalArgumentException("transformer-infer does not train; --optimizer does not apply");
        }
        Device device = context.device();
        int batch = context.batchSize() > 0 ? context.batchSize() : DEFAULT_BATCH;
        try (Decoder model = new Decoder(context.seed())) {
            model.to(device).train(false);
            generate(context, model, device, batch);
        }
    }

    private static void generate(WorkloadContext context, Decoder model, Device device, int batch) {
        SplittableRandom random = new SplittableRandom(context.seed());
        // the last CONTEXT tokens of each sequence, token i at i % CONTEXT: all the model ever reads, so a served
        // generation runs any number of steps in the same memory
        long[][] recent = new long[batch][CONTEXT];
        for (long[] s : recent) {
            for (int i = 0; i < PROMPT; i++) {
                s[i] = random.nextInt(VOCAB);
            }
        }
        try (GradMode.Scope off = GradMode.disabled()) {
            for (int step = 0; step < context.steps(); step++) {
                long end = PROMPT + (long) step;
                long start = Math.max(0, end - CONTEXT);
                int width = (int) (end - start);
                long[] window = new long[batch * width];
                for (int b = 0; b < batch; b++) {
                    for (int i = 0; i < width; i++) {
                        window[b * width + i] = recent[b][(int) ((start + i) % CONTEXT)];
                    }
                }
                long[] next;
                // each step's ids, activations and logits are freed when its token is picked
                try (TensorScope scope = TensorScope.open()) {
                    Tensor ids = Inputs.toDevice(Tensor.ofLongs(window, batch, width), device);
                    Tensor logits = model.forward(ids);
                    next = logits.slice(1, width - 1, width).squeeze(1).argmax(-1, false).toLongArray();
                }
                StringBuilder line = new StringBuilder("step ").append(step + 1).append(" next tokens");
                for (int b = 0; b < batch; b++) {
                    recent[b][(int) (end % CONTEXT)] = next[b];
                    line.append(' ').append(next[b]);
                }
                context.out().println(line);
                context.step();
            }
        }
    }
}
