// The Azure SDK (@azure/arm-compute and @azure/core-rest-pipeline), loaded on its first use rather than at start-up.
//
// Loading its some 300 modules is a third of start-up (90-130 ms with the compile cache), and nothing the service
// answers before its first Azure call needs it: /health, the status page, a submission. The first client built, the
// first probe of an account or the first task loads it; /ready probes the accounts, so it loads it too.
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
