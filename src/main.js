// The service's entry point: `node src/main.js` (npm start and the image's CMD add V8's start-up heap flag, which
// the service otherwise restarts itself with: src/node-process.ts).
//
// Plain JavaScript, for one reason: Node strips a TypeScript entry point's types before any line of it runs, and
// the compile cache that spares every later module that work is turned on by code. With src/server.ts as the entry,
// Node loaded its type stripper for that one file at every start, about 60 ms of start-up, and the stripper then
// stayed in the process: about 15 MB of its memory for as long as the service ran (114 MB after /ready started
// here, 128-129 MB started as `node --max-semi-space-size=8 src/server.ts`; 2026-11-26). This file turns the cache
// on, then loads src/server.ts and all that follows from it: a first start, or a changed file, still strips them.
import { enableModuleCompileCache } from "./compile-cache.js";

enableModuleCompileCache();
await import("./server.ts");
