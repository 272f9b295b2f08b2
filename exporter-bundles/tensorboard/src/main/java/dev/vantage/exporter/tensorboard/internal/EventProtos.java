package dev.vantage.exporter.tensorboard.internal;

import dev.vantage.exporter.tensorboard.internal.proto.Event;
import dev.vantage.exporter.tensorboard.internal.proto.Summary;

/**
 * TensorBoard's {@code tensorflow.Event} records for scalars, built with the classes protoc generates at build time
 * from {@code src/main/proto/vantage/tensorboard_event.proto} (TensorFlow's message names and field numbers for the
 * fields written: {@code Event.wall_time}, {@code step}, {@code file_version}, {@code summary};
 * {@code Summary.value}; {@code Summary.Value.tag}, {@code simple_value}).
 */
final class EventProtos {

    private EventProtos() {
    }

    /** The first record of every event file: {@code file_version: "brain.Event:2"}. */
    static byte[] fileVersion(double wallTime) {
        return Event.newBuilder().setWallTime(wallTime).setFileVersion("brain.Event:2").build().toByteArray();
    }

    /** An event holding one scalar. */
    static byte[] scalar(double wallTime, long step, String tag, float value) {
        return Event.newBuilder()
                .setWallTime(wallTime)
                .setStep(step)
                .setSummary(Summary.newBuilder().addValue(Summary.Value.newBuilder().setTag(tag).setSimpleValue(value)))
                .build().toByteArray();
    }
}
