// Starts OpenTelemetry's tracing SDK when OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) is set,
// and only then: the SDK's packages are imported here, at start, so a service without the variable loads none of
// them and its spans (spans.ts) cost a boolean test each. Spans go in batches to the collector over OTLP/HTTP, as
// JSON (the exporter reads the OpenTelemetry variables itself: endpoint, headers, timeout; OTEL_BSP_* for batching).
import { context, trace } from "@opentelemetry/api";
import { setTracingEnabled } from "./spans.ts";

export interface Tracing {
  /** Sends the spans still buffered and stops (the service's shutdown). */
  shutdown(): Promise<void>;
}

/** Whether the environment asks for traces: an OTLP endpoint set, and the SDK not disabled. */
export function tracingWanted(env: NodeJS.ProcessEnv): boolean {
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return Boolean(endpoint) && env.OTEL_SDK_DISABLED?.toLowerCase() !== "true" && env.OTEL_TRACES_EXPORTER !== "none";
}

/** OpenTelemetry's OTEL_BSP_* variables, which this version of the batch processor does not read itself. */
function batchOptions(env: NodeJS.ProcessEnv) {
  const read = (name: string) => {
    const n = Number(env[name]);
    return env[name] && Number.isFinite(n) && n >= 0 ? n : undefined;
  };
  const options = {
    scheduledDelayMillis: read("OTEL_BSP_SCHEDULE_DELAY"),
    exportTimeoutMillis: read("OTEL_BSP_EXPORT_TIMEOUT"),
    maxQueueSize: read("OTEL_BSP_MAX_QUEUE_SIZE"),
    maxExportBatchSize: read("OTEL_BSP_MAX_EXPORT_BATCH_SIZE"),
  };
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
}

/** Starts tracing if the environment asks for it (tracingWanted); undefined otherwise. */
export async function startTracing(env: NodeJS.ProcessEnv, replicaId: string): Promise<Tracing | undefined> {
  if (!tracingWanted(env)) return undefined;
  const [{ TracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { AsyncLocalStorageContextManager }, res] =
    await Promise.all([
      import("@opentelemetry/sdk-trace"),
      import("@opentelemetry/exporter-trace-otlp-http"),
      import("@opentelemetry/context-async-hooks"),
      import("@opentelemetry/resources"),
    ]);
  const provider = new TracerProvider({
    resource: res.defaultResource().merge(
      res.resourceFromAttributes({
        "service.name": env.OTEL_SERVICE_NAME || "vmss-ops",
        "service.instance.id": replicaId,
      }),
    ),
    spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter(), ...batchOptions(env) })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  trace.setGlobalTracerProvider(provider);
  setTracingEnabled(true);
  return {
    async shutdown() {
      setTracingEnabled(false);
      await provider.shutdown();
    },
  };
}
