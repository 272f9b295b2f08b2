package dev.vantage.tensor;

import java.util.ArrayList;
import java.util.List;

import dev.vantage.profiler.dispatch.DispatchHook;
import dev.vantage.profiler.dispatch.OpCall;

/** A dispatch hook that keeps what it saw at each enter, nested by depth. */
final class RecordingHook implements DispatchHook {

    /** One op as seen at enter. */
    record Seen(String name, int depth, long seq, long fwdThread, String key, List<String> types) {
    }

    final List<Seen> seen = new ArrayList<>();
    private int depth;

    @Override
    public long onEnter(OpCall call) {
        List<String> types = new ArrayList<>();
        for (int i = 0; i < call.inputCount(); i++) {
            types.add(call.inputType(i));
        }
        seen.add(new Seen(call.name(), depth++, call.sequenceNumber(), call.forwardThreadId(), call.dispatchKey(),
                types));
        return 0;
    }

    @Override
    public void onExit(OpCall call, long handle) {
        depth--;
    }

    List<String> names() {
        return seen.stream().map(Seen::name).toList();
    }
}
