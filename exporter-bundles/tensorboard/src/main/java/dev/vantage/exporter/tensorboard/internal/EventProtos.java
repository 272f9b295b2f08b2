package dev.vantage.exporter.tensorboard.internal;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;

/**
 * TensorBoard's {@code tensorflow.Event} and {@code tensorflow.Summary} messages, the subset of fields scalars need
 * (field numbers as in TensorFlow's {@code event.proto} and {@code summary.proto}): {@code Event.wall_time = 1},
 * {@code step = 2}, {@code file_version = 3}, {@code summary = 5}; {@code Summary.value = 1};
 * {@code Summary.Value.tag = 1}, {@code simple_value = 2}. Described in code and encoded with protobuf-java's
 * {@link DynamicMessage}, so the build needs no protoc.
 */
final class EventProtos {

    static final Descriptor EVENT;
    static final Descriptor SUMMARY;
    static final Descriptor VALUE;

    static {
        FileDescriptorProto file = FileDescriptorProto.newBuilder()
                .setName("vantage/tensorboard_event.proto")
                .setPackage("tensorflow")
                .setSyntax("proto3")
                .addMessageType(DescriptorProto.newBuilder().setName("Summary")
                        .addNestedType(DescriptorProto.newBuilder().setName("Value")
                                .addField(field("tag", 1, FieldDescriptorProto.Type.TYPE_STRING, null, false))
                                .addField(field("simple_value", 2, FieldDescriptorProto.Type.TYPE_FLOAT, null,
                                        false)))
                        .addField(field("value", 1, FieldDescriptorProto.Type.TYPE_MESSAGE,
                                ".tensorflow.Summary.Value", true)))
                .addMessageType(DescriptorProto.newBuilder().setName("Event")
                        .addField(field("wall_time", 1, FieldDescriptorProto.Type.TYPE_DOUBLE, null, false))
                        .addField(field("step", 2, FieldDescriptorProto.Type.TYPE_INT64, null, false))
                        .addField(field("file_version", 3, FieldDescriptorProto.Type.TYPE_STRING, null, false))
                        .addField(field("summary", 5, FieldDescriptorProto.Type.TYPE_MESSAGE, ".tensorflow.Summary",
                                false)))
                .build();
        try {
            FileDescriptor descriptor = FileDescriptor.buildFrom(file, new FileDescriptor[0]);
            SUMMARY = descriptor.findMessageTypeByName("Summary");
            VALUE = SUMMARY.findNestedTypeByName("Value");
            EVENT = descriptor.findMessageTypeByName("Event");
        } catch (DescriptorValidationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private EventProtos() {
    }

    private static FieldDescriptorProto field(String name, int number, FieldDescriptorProto.Type type,
            String typeName, boolean repeated) {
        FieldDescriptorProto.Builder b = FieldDescriptorProto.newBuilder().setName(name).setNumber(number)
                .setType(type).setLabel(repeated ? FieldDescriptorProto.Label.LABEL_REPEATED
                        : FieldDescriptorProto.Label.LABEL_OPTIONAL);
        if (typeName != null) {
            b.setTypeName(typeName);
        }
        return b.build();
    }

    /** The first record of every event file: {@code file_version: "brain.Event:2"}. */
    static byte[] fileVersion(double wallTime) {
        return DynamicMessage.newBuilder(EVENT)
                .setField(EVENT.findFieldByName("wall_time"), wallTime)
                .setField(EVENT.findFieldByName("file_version"), "brain.Event:2")
                .build().toByteArray();
    }

    /** An event holding one scalar. */
    static byte[] scalar(double wallTime, long step, String tag, float value) {
        DynamicMessage v = DynamicMessage.newBuilder(VALUE)
                .setField(VALUE.findFieldByName("tag"), tag)
                .setField(VALUE.findFieldByName("simple_value"), value)
                .build();
        DynamicMessage summary = DynamicMessage.newBuilder(SUMMARY)
                .addRepeatedField(SUMMARY.findFieldByName("value"), v)
                .build();
        return DynamicMessage.newBuilder(EVENT)
                .setField(EVENT.findFieldByName("wall_time"), wallTime)
                .setField(EVENT.findFieldByName("step"), step)
                .setField(EVENT.findFieldByName("summary"), summary)
                .build().toByteArray();
    }
}
