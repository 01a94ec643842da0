// The Azure SDK (@azure/arm-compute and @azure/core-rest-pipeline), loaded when asked rather than when imported.
//
// Loading its some 300 modules is a third of start-up (90-130 ms with the compile cache). The entry point loads it
// before the service listens (loadAzureSdk, from src/app.ts warm()): the runner's first claim needs it at once, and a
// load after listening held every request that had come meanwhile (docs/faults.md, "A replica restarted"). A
// service built without listening (tests, scripts) loads it with its first client, probe or task.
//
// Loaded with require() of the packages' ES module builds: synchronously, so that building a client stays an
// ordinary call, and as the same module instances an `import` of the package elsewhere gets (an `instanceof` of
// the SDK's classes holds across both). Node's import() would block just as long: it loads files synchronously.
import { createRequire, flushCompileCache } from "node:module";
import { fileURLToPath } from "node:url";
import type * as ArmCompute from "@azure/arm-compute";
import type * as RestPipeline from "@azure/core-rest-pipeline";

const requireModule = createRequire(import.meta.url);

/** A package's ES module build, as `import` resolves it. */
function loadEsm<T>(specifier: string): T {
  const loaded = requireModule(fileURLToPath(import.meta.resolve(specifier))) as T;
  // Into Node's compile cache now, as src/server.ts does with what start-up loaded, rather than at exit: a replica
  // that is killed would otherwise compile the SDK from source at every start.
  flushCompileCache();
  return loaded;
}

let armCompute: typeof ArmCompute | undefined;
let restPipeline: typeof RestPipeline | undefined;
let httpClient: RestPipeline.HttpClient | undefined;

/** @azure/arm-compute: ComputeManagementClient, restorePoller. */
export function computeSdk(): typeof ArmCompute {
  return (armCompute ??= loadEsm<typeof ArmCompute>("@azure/arm-compute"));
}

/** @azure/core-rest-pipeline: requests sent through a client's pipeline outside its operations. */
export function pipelineSdk(): typeof RestPipeline {
  return (restPipeline ??= loadEsm<typeof RestPipeline>("@azure/core-rest-pipeline"));
}

/** The HTTP client those requests go out on (a client's operations use their own). */
export function sharedHttpClient(): RestPipeline.HttpClient {
  return (httpClient ??= pipelineSdk().createDefaultHttpClient());
}

/** All of the above, now: what a replica's first task would load (src/app.ts warm()). */
export function loadAzureSdk(): void {
  computeSdk();
  sharedHttpClient();
}
