// A client span for every ARM request our clients send (OpenTelemetry's HTTP client conventions, with Azure's
// request ids), and a span for the time a request waited for the ARM budget before it was sent. Both are pipeline
// policies (createComputeClient); with tracing off (src/tracing/spans.ts) they only pass the request on.
import type { PipelinePolicy, PipelineResponse } from "@azure/core-rest-pipeline";
import { context, SpanKind, SpanStatusCode, trace, type Attributes } from "@opentelemetry/api";
import { traceparentOf, tracingEnabled } from "../tracing/spans.ts";
import { armCallWaiting, listenToArmResponses, type ArmResponseListener } from "./arm-listeners.ts";

/** Azure's ids of a request, as the Azure SDKs name them on spans, and as response headers by the HTTP conventions. */
const AZURE_HEADERS: Record<string, string> = {
  "x-ms-request-id": "az.service_request_id",
  "x-ms-correlation-request-id": "az.correlation_request_id",
  "x-ms-client-request-id": "az.client_request_id",
};

/** ARM's collections whose next path segment is a name: replaced by a placeholder, for a span name that groups. */
const NAMED =
  /\/(subscriptions|resourceGroups|virtualMachineScaleSets|virtualMachines|locations|operations|operationResults|networkInterfaces|loadBalancers|backendAddressPools|applicationGateways|locks)\/[^/?]+/gi;

/** The path of an ARM URL with its names replaced: /subscriptions/{subscriptions}/resourceGroups/{resourceGroups}/… */
export function armPathTemplate(url: string): string {
  return new URL(url).pathname.replace(NAMED, (_, collection: string) => `/${collection}/{${collection}}`);
}

function responseAttributes(response: PipelineResponse): Attributes {
  const attributes: Attributes = { "http.response.status_code": response.status };
  for (const [header, name] of Object.entries(AZURE_HEADERS)) {
    const value = response.headers.get(header);
    if (value === undefined) continue;
    attributes[name] = value;
    attributes[`http.response.header.${header}`] = [value];
  }
  if (response.status >= 400) attributes["error.type"] = String(response.status);
  return attributes;
}

export const armTracingPolicy: PipelinePolicy = {
  name: "vmssOpsArmTracing",
  async sendRequest(request, next) {
    if (!tracingEnabled()) return next(request);
    const url = new URL(request.url);
    const template = armPathTemplate(request.url);
    const span = trace.getTracer("vmss-ops").startSpan(
      `${request.method} ${template}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          "http.request.method": request.method,
          "url.full": request.url,
          "url.template": template,
          "server.address": url.hostname,
          "server.port": Number(url.port || (url.protocol === "https:" ? 443 : 80)),
          "az.namespace": "Microsoft.Compute",
        },
      },
      context.active(),
    );
    // Azure keeps a caller's traceparent with the request (and the simulator's call log shows it).
    request.headers.set("traceparent", traceparentOf(span));
    try {
      const response = await context.with(trace.setSpan(context.active(), span), () => next(request));
      span.setAttributes(responseAttributes(response));
      if (response.status >= 400) span.setStatus({ code: SpanStatusCode.ERROR });
      return response;
    } catch (err) {
      const status = (err as { statusCode?: number }).statusCode;
      span.setAttribute("error.type", status ? String(status) : ((err as Error)?.name ?? "Error"));
      span.recordException(err as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error)?.message });
      throw err;
    } finally {
      span.end();
    }
  },
};

/**
 * `policy` as it is, plus a span for the time it held a task's request before passing it on, made only when it said
 * it waits (the ARM budget tells the task's listeners, ArmResponseListener.onArmWait): a call let through at once,
 * or a read for a cache, adds no span.
 */
export function tracingWaitOf(policy: PipelinePolicy, spanName: string): PipelinePolicy {
  return {
    name: policy.name,
    sendRequest(request, next) {
      if (!tracingEnabled() || !armCallWaiting()) return policy.sendRequest(request, next);
      const outer = context.active();
      const startMs = Date.now();
      let waited: { budget: string; waitMs: number } | undefined;
      let passed = false;
      const span = (error?: unknown) => {
        if (passed) return;
        passed = true;
        if (!waited) return;
        const s = trace.getTracer("vmss-ops").startSpan(
          spanName,
          {
            startTime: startMs,
            attributes: {
              "vmss.arm_budget": waited.budget,
              "vmss.arm_budget.wait_ms": waited.waitMs,
              "http.request.method": request.method,
              "url.full": request.url,
            },
          },
          outer,
        );
        if (error !== undefined) {
          s.recordException(error as Error);
          s.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error)?.message });
        }
        s.end();
      };
      // A listener beside the task's own (which makes the call a task's: armCallWaiting above), told of the wait.
      const told: ArmResponseListener = { onArmResponse: () => {}, onArmWait: (w) => void (waited ??= w) };
      return listenToArmResponses(told, () =>
        policy.sendRequest(request, (req) => {
          span();
          return context.with(outer, () => next(req));
        }),
      ).catch((err: unknown) => {
        span(err);
        throw err;
      });
    },
  };
}
