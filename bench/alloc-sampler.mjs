// Preloaded into the service by `node bench/profile-task.ts --alloc` (NODE_OPTIONS=--import=…): V8's sampling heap
// profiler, counting every allocation, also those the collector has freed since (what a task's garbage is made of),
// from SIGUSR2 on; the profile is written to $ALLOC_PROFILE_FILE when the process exits.
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";

const session = new Session();
session.connect();
process.on("SIGUSR2", () => {
  session.post("HeapProfiler.enable");
  session.post("HeapProfiler.startSampling", {
    samplingInterval: 16_384,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
});
process.on("exit", () => {
  // The inspector session of the process's own thread answers synchronously, so this runs before the exit.
  session.post("HeapProfiler.stopSampling", (err, result) => {
    const file = process.env.ALLOC_PROFILE_FILE;
    if (!err && file) writeFileSync(file, JSON.stringify(result.profile));
  });
});
