package dev.vantage.tensor.distributed;

import java.util.Arrays;
import java.util.Objects;

/**
 * Where a profiler learns what collectives ran: the message sizes, group and dtype torch shows on its
 * {@code record_param_comms} events, which a {@code RecordFunction} cannot carry. The collective's scopes
 * ({@code record_param_comms} and {@code gloo:all_reduce} inside it) are in the profile anyway; a listener adds
 * {@link CollectiveInfo} to them by thread id and time.
 *
 * <p>Costs one volatile read per collective when nobody listens. Listeners are kept in a copy-on-write array.
 */
public final class CollectiveEvents {

    private static volatile CollectiveListener[] listeners;

    private CollectiveEvents() {
    }

    /** Adds a listener; adding one twice makes it called twice. */
    public static synchronized void addListener(CollectiveListener listener) {
        Objects.requireNonNull(listener, "listener");
        CollectiveListener[] old = listeners;
        CollectiveListener[] now = old == null ? new CollectiveListener[1] : Arrays.copyOf(old, old.length + 1);
        now[now.length - 1] = listener;
        listeners = now;
    }

    /** Removes a listener (one occurrence); does nothing if it was not added. */
    public static synchronized void removeListener(CollectiveListener listener) {
        CollectiveListener[] old = listeners;
        if (old == null) {
            return;
        }
        for (int i = 0; i < old.length; i++) {
            if (old[i] == listener) {
                CollectiveListener[] now = new CollectiveListener[old.length - 1];
                System.arraycopy(old, 0, now, 0, i);
                System.arraycopy(old, i + 1, now, i, now.length - i);
                listeners = now.length == 0 ? null : now;
                return;
            }
        }
    }

    /** Returns the listeners now, or null when there are none; the caller's guard. */
    static CollectiveListener[] listeners() {
        return listeners;
    }

    static void started(CollectiveListener[] to, CollectiveInfo info) {
        for (CollectiveListener l : to) {
            try {
                l.started(info);
            } catch (RuntimeException e) {
                // a listener's failure must not fail the collective, which the other ranks wait for
            }
        }
    }

    static void completed(CollectiveListener[] to, CollectiveInfo info, Throwable failure) {
        for (CollectiveListener l : to) {
            try {
                l.completed(info, failure);
            } catch (RuntimeException e) {
                // as in started
            }
        }
    }
}
