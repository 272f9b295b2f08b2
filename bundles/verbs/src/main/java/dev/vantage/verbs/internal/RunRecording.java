package dev.vantage.verbs.internal;

import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import dev.vantage.cli.RunCommand;
import dev.vantage.cli.UsageException;
import dev.vantage.profiler.api.Activity;
import dev.vantage.profiler.api.Profiler;
import dev.vantage.profiler.api.SortKey;
import dev.vantage.tensor.Device;

/**
 * What a profiled run records and how its table is sorted, resolved against what is installed before any work:
 * cache-dit's default activities (CPU and the run device's; {@code GPU} names the run device's), the device of a
 * runtime that is no tensor backend (ONNX Runtime's {@code ort}), the sort key, and the exporters asked for.
 * {@code sortByRecordedDevice}: the default order follows a runtime device's time when that device recorded work in
 * a cycle.
 */
record RunRecording(Set<Activity> activities, SortKey sortBy, boolean sortByRecordedDevice) {

    /**
     * Resolves the activities (cache-dit's default: CPU and the run device's; {@code GPU} names the run device's)
     * and the sort key, and checks them and the exporters against what is installed.
     */
    static RunRecording resolve(Platform platform, Profiler profiler, RunCommand o, Device device)
            throws UsageException {
        Set<String> formats = profiler.exporterFormats();
        for (String f : o.exports()) {
            if (!formats.contains(f)) {
                throw new UsageException("--profile-export " + f + ": no such exporter in this distribution;"
                        + " installed: " + (formats.isEmpty() ? "none" : String.join(", ", formats))
                        + " (deploy an exporter bundle into the deploy directory, or use --distribution full)");
            }
        }
        Map<Activity, String> deviceActivities = profiler.deviceActivities();
        Activity onDevice = deviceActivities.entrySet().stream().filter(e -> e.getValue().equals(device.type()))
                .map(Map.Entry::getKey).findFirst().orElse(null);
        // a device that is no tensor backend (ONNX Runtime's ort) runs whatever the run device: its activity goes
        // with every run, and its source declines when it has nothing of the run's to record
        Set<String> backends = new java.util.HashSet<>();
        platform.devices().forEach(d -> backends.add(d.type()));
        Set<Activity> runtimes = new TreeSet<>();
        deviceActivities.forEach((a, type) -> {
            if (!backends.contains(type)) {
                runtimes.add(a);
            }
        });
        Set<Activity> activities = new TreeSet<>();
        if (o.activities() == null) {
            activities.add(Activity.CPU);
            if (onDevice != null) {
                activities.add(onDevice);
            }
            activities.addAll(runtimes);
        } else {
            for (String name : o.activities()) {
                if (name.equalsIgnoreCase("GPU")) {
                    if (onDevice == null) {
                        throw new UsageException("--profile-activities GPU: the run is on " + device + ", which has"
                                + " no device activity; record CPU");
                    }
                    activities.add(onDevice);
                    continue;
                }
                try {
                    activities.add(Activity.parse(name));
                } catch (IllegalArgumentException e) {
                    throw new UsageException("--profile-activities: " + e.getMessage());
                }
            }
        }
        for (Activity a : activities) {
            if (a.equals(Activity.CPU) || a.equals(Activity.MEM)) {
                continue;
            }
            String type = deviceActivities.get(a);
            if (type == null) {
                throw new UsageException("--profile-activities " + a + ": no installed device records it;"
                        + " available: " + profiler.availableActivities());
            }
            if (!type.equals(device.type()) && !runtimes.contains(a)) {
                String instead = deviceActivities.entrySet().stream()
                        .filter(e -> e.getValue().equals(device.type())).map(e -> e.getKey().name())
                        .findFirst().map(n -> "record " + n + " for it").orElse("it has no device activity");
                throw new UsageException("--profile-activities " + a + ": records " + type + " devices, but"
                        + " the run is on " + device + "; " + instead);
            }
        }
        SortKey sortBy;
        boolean sortByRecordedDevice = false;
        if (o.sortBy() == null) {
            // as cache-dit sorts a device run: by what the device spent itself
            sortBy = onDevice != null && activities.contains(onDevice) ? SortKey.SELF_DEVICE_TIME_TOTAL
                    : SortKey.SELF_CPU_TIME_TOTAL;
            sortByRecordedDevice = sortBy == SortKey.SELF_CPU_TIME_TOTAL
                    && runtimes.stream().anyMatch(activities::contains);
        } else {
            try {
                sortBy = SortKey.parse(o.sortBy());
            } catch (IllegalArgumentException e) {
                throw new UsageException("--profile-sort-by: " + e.getMessage());
            }
        }
        return new RunRecording(Set.copyOf(activities), sortBy, sortByRecordedDevice);
    }
}
