// The Azure Resource Manager simulator: an HTTPS server speaking the ARM REST API for
// Microsoft.Compute/virtualMachineScaleSets the way @azure/arm-compute v25 uses it, plus a control API under /_sim.
import { createServer, type Server } from "node:https";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ArmError } from "./arm-errors.ts";
import { settleAutoscale } from "./autoscale/autoscale-run.ts";
import { CallLog } from "./calls.ts";
import type { SimulatorContext } from "./context.ts";
import { buildControlRouter, CONTROL_PREFIX } from "./control-routes.ts";
import { buildArmRouter } from "./arm-routes.ts";
import { FaultStore } from "./faults.ts";
import { createContext, readBody, send, type RequestContext } from "./http.ts";
import { IMAGE_ALIAS_DOC_PATH, imageAliasDoc } from "./image-catalogue.ts";
import { METADATA_ENDPOINTS_PATH, metadataEndpoints } from "./metadata-endpoints.ts";
import { armPipeline, dispatchTo, runSteps } from "./pipeline.ts";
import { seedDemo } from "./seed.ts";
import { skewedDateHeader } from "./subscription-reads.ts";
import { defaultSettings, SIMULATOR_SUBSCRIPTION_ID, TIME_SCALE_HEADER, type SimulatorSettings } from "./settings.ts";
import { SimState } from "./state.ts";
import { clockAfterRestart, restoreInto, StateDir } from "./state-dir.ts";
import { snapshotWorld, type WorldSnapshot } from "./world-snapshot.ts";
import { Throttler } from "./throttling.ts";
import { loadTlsMaterial } from "./tls.ts";
import { handleIdentity, SimulatedEntraId } from "./token-endpoint.ts";

/** Any SimulatorSettings (settings.ts) can be given; the rest take their defaults. */
export interface SimulatorOptions extends Partial<SimulatorSettings> {
  /** Default 127.0.0.1. */
  host?: string;
  /** 0 = any free port (default 0). */
  port?: number;
  /** Default SIMULATOR_SUBSCRIPTION_ID (settings.ts). */
  subscriptionId?: string;
  /** Seed the demo scale sets (demo-rg: web-prod-v001, web-prod-v002, batch-v001). Default false. */
  seed?: boolean;
  /** Azure's throttling (token buckets, rate-limit headers). Default true. */
  throttling?: boolean;
  /**
   * The simulator's clock (ms since the epoch), default Date.now: operation timestamps and completions, and the
   * refill of the throttling buckets. Tests can pass a hand-moved clock. (The call log's `time` uses real time.)
   */
  now?: () => number;
  /**
   * Where the world is kept (state-dir.ts): read at start when the directory holds one (the seed then goes nowhere),
   * written before every answer that changed it, and at close. Default: none, the world lives in memory only.
   */
  stateDir?: string;
}

export interface RunningSimulator {
  /** https://127.0.0.1:PORT, no trailing slash. */
  url: string;
  port: number;
  /** The certificate to trust for this simulator (clients pass it as `tlsOptions.ca`). */
  caPem: string;
  subscriptionId: string;
  /** Where the world is kept (the stateDir option), and what was found there at start. */
  stateDir?: StateDirAtStart;
  /** Stops listening, drops open connections (keep-alive included) and clears every timer; writes the state. */
  close(): Promise<void>;
}

export interface StateDirAtStart {
  dir: string;
  /** The directory held a world, now restored (else it was empty and the seed, if any, went in). */
  restored: boolean;
  /** The simulator's clock when the restored world was written. */
  savedAt?: number;
  scaleSets: number;
  /** Long-running operations that were in flight when it was written: they go on (docs/simulator.md). */
  inFlight: number;
}

export const BODY_LIMIT_BYTES = 1024 * 1024;

/** The host as it appears in a URL: wildcard addresses become loopback, IPv6 gets brackets. */
function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "") return "127.0.0.1";
  if (host === "::") return "[::1]";
  return host.includes(":") ? `[${host}]` : host;
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<RunningSimulator> {
  const host = options.host ?? "127.0.0.1";
  const tls = loadTlsMaterial();
  const entra = new SimulatedEntraId(options.now ?? Date.now);
  const { sim, atStart, save } = simulatorContext(options, entra);
  const { state } = sim;

  const armSteps = armPipeline(buildArmRouter());
  const controlSteps = [dispatchTo(buildControlRouter())];
  let url = "";

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const base = createContext(req, res, url);
    const isControl = base.pathname === CONTROL_PREFIX || base.pathname.toLowerCase().startsWith(`${CONTROL_PREFIX}/`);
    const call =
      isControl || entra.isIdentityPath(base.pathname) ? undefined : logCall(sim, req, base.method, base.pathname);
    if (save) saveBeforeAnswering(res, () => save());
    let body: { body: Buffer; tooLarge: boolean };
    try {
      body = await readBody(req, sim.bodyLimitBytes);
    } catch {
      return; // the client went away
    }
    // ARM answers /metadata/endpoints to anyone, before any token check.
    if (base.method === "GET" && base.pathname.toLowerCase() === METADATA_ENDPOINTS_PATH) {
      send(
        { ...base, body: body.body, bodyTooLarge: false, call },
        200,
        metadataEndpoints(base.baseUrl, base.url.searchParams.get("api-version")),
      );
      return;
    }
    if (base.method === "GET" && base.pathname === IMAGE_ALIAS_DOC_PATH) {
      send({ ...base, body: body.body, bodyTooLarge: false, call }, 200, imageAliasDoc());
      return;
    }
    // Microsoft Entra ID's token endpoint, and the check of the tokens it issued (token-endpoint.ts).
    if (handleIdentity(entra, req, res, base.pathname, body.body, url)) {
      if (call) call.status = res.statusCode;
      return;
    }
    const ctx: RequestContext = { ...base, body: body.body, bodyTooLarge: body.tooLarge, call };
    // Every ARM answer states the simulator's clock (TIME_SCALE_HEADER): a client pacing itself by it learns of a
    // change (PUT /_sim/config) with its next call, with no poll of the control API.
    if (!isControl)
      ctx.responseHeaders = {
        ...ctx.responseHeaders,
        ...skewedDateHeader(sim),
        [TIME_SCALE_HEADER]: String(state.settings.timeScale),
      };
    if (isControl && ctx.bodyTooLarge) {
      send(
        ctx,
        413,
        new ArmError(413, "RequestEntityTooLarge", `The body exceeds ${sim.bodyLimitBytes} bytes.`).toBody(),
      );
      return;
    }
    // Operations that are due complete (and rolling batches advance) before anything is read or written.
    state.settle();
    settleAutoscale(sim); // Azure Monitor's evaluation, when one is due on the simulator's clock
    runSteps(isControl ? controlSteps : armSteps, ctx, sim);
  }

  const server = createServer({ key: tls.keyPem, cert: tls.certPem, keepAliveTimeout: 5000 }, (req, res) => {
    handle(req, res).catch((err: unknown) => answerUnexpected(res, err));
  });
  server.on("clientError", (_err, socket) => socket.destroy());

  await listen(server, options.port ?? 0, host);
  const port = (server.address() as AddressInfo).port;
  url = `https://${urlHost(host)}:${port}`;

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    caPem: tls.certPem,
    subscriptionId: state.subscriptionId,
    ...(atStart ? { stateDir: atStart } : {}),
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }).then(() => save?.(true));
      return closing;
    },
  };
}

/**
 * The simulator's state, faults, call log and throttling, as the options say: the world the state directory holds,
 * else a new one, seeded with the demo when asked.
 */
function simulatorContext(
  options: SimulatorOptions,
  entra: SimulatedEntraId,
): { sim: SimulatorContext; atStart?: StateDirAtStart; save?: (always?: boolean) => void } {
  const stateDir = options.stateDir === undefined ? undefined : new StateDir(options.stateDir);
  const {
    host: _host,
    port: _port,
    subscriptionId,
    seed,
    throttling,
    now: givenNow,
    stateDir: _dir,
    ...given
  } = options;
  const saved = stateDir?.read(subscriptionId ?? SIMULATOR_SUBSCRIPTION_ID);
  const now = saved ? clockAfterRestart(saved.savedAt, givenNow ?? Date.now) : (givenNow ?? Date.now);
  const settings: SimulatorSettings = { ...defaultSettings(), ...given };
  const state = new SimState(subscriptionId ?? SIMULATOR_SUBSCRIPTION_ID, settings, now);
  const sim: SimulatorContext = {
    state,
    faults: new FaultStore(),
    calls: new CallLog(),
    seeded: seed ?? false,
    bodyLimitBytes: BODY_LIMIT_BYTES,
    throttling: new Throttler(now, () => state.settings.timeScale, throttling ?? true),
  };
  if (saved) restoreInto(sim, entra, saved);
  else if (sim.seeded) seedDemo(state);
  if (!stateDir) return { sim };
  const save = (always = false) => stateDir.save(() => snapshotWorld(state, sim.seeded, entra.saved()), always);
  save(); // a new world (the seed) is kept before anyone is answered
  return { sim, atStart: stateDirAtStart(stateDir.dir, saved), save };
}

function stateDirAtStart(dir: string, saved: WorldSnapshot | undefined): StateDirAtStart {
  if (!saved) return { dir, restored: false, scaleSets: 0, inFlight: 0 };
  return {
    dir,
    restored: true,
    savedAt: saved.savedAt,
    scaleSets: saved.scaleSets.length,
    inFlight: saved.operations.filter((op) => op.status === "InProgress").length,
  };
}

/**
 * Keeps the world before the answer leaves: a client that was answered finds what it did after a crash. Handlers
 * answer in the turn they change the world (context.ts), so the world written is the one the answer describes.
 */
function saveBeforeAnswering(res: ServerResponse, save: () => void): void {
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  res.end = ((...args: unknown[]) => {
    try {
      save();
    } catch (err) {
      // The answer still goes: the world is in memory, and the next answer writes it again.
      console.error("[simulator] the state directory could not be written:", err);
    }
    return end(...args);
  }) as ServerResponse["end"];
}

/** An ARM call in the call log, its status filled in when it is answered. */
function logCall(sim: SimulatorContext, req: IncomingMessage, method: string, path: string) {
  return sim.calls.add({
    method,
    path,
    status: null,
    ifMatch: typeof req.headers["if-match"] === "string" ? req.headers["if-match"] : null,
    ...(typeof req.headers["if-none-match"] === "string" ? { ifNoneMatch: req.headers["if-none-match"] } : {}),
    ...(req.headers["user-agent"] ? { userAgent: req.headers["user-agent"] } : {}),
    time: Date.now(),
  });
}

/** A bug of the simulator's own: a 500 in ARM's shape, or the connection cut when the answer had begun. */
function answerUnexpected(res: ServerResponse, err: unknown): void {
  console.error("[simulator] unexpected error:", err);
  if (!res.headersSent) {
    res.writeHead(500, { "content-type": "application/json; charset=utf-8" });
    res.end(
      JSON.stringify({
        error: { code: "InternalServerError", message: "The simulator failed to handle the request." },
      }),
    );
  } else {
    res.destroy();
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}
