// A replica that closes answers what still reaches it from the error catalogue: 503 ShuttingDown with Retry-After,
// never fastify's own bare 503 ("Service Unavailable", no Retry-After). A request pipelined on a keep-alive
// connection behind one in flight arrives while the server closes, as a load balancer's do.
import t from "tap";
import { connect } from "node:net";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/startup-config.ts";
import { startSimulator } from "vmss-simulator";
import { waitFor } from "../testkit/wait-for.ts";

const sim = await startSimulator({ port: 0, timeScale: 0.001 });
t.teardown(() => sim.close());

void t.test("a request that arrives while the replica closes: 503 ShuttingDown with Retry-After", async (t) => {
  const config = loadConfig({ SIMULATOR_URL: sim.url, TASK_STORE: "memory" });
  for (const a of config.accounts) if (a.credential.kind === "simulator") a.caPem = sim.caPem;
  const service = await buildApp({ config, logger: false });
  await service.app.listen({ host: "127.0.0.1", port: 0 });
  const port = (service.app.server.address() as { port: number }).port;

  const socket = connect(port, "127.0.0.1");
  let received = "";
  socket.on("data", (d: Buffer) => (received += d.toString()));
  const ended = new Promise<void>((r) => socket.on("close", () => r()));
  await new Promise<void>((r) => socket.once("connect", () => r()));
  // The first request is in flight (its body half sent) when the replica begins to close.
  const body = JSON.stringify({ credentials: "demo", region: "eastus", serverGroupName: "nowhere" });
  socket.write(
    `POST /azure/ops/resizeServerGroup/dryRun HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 5)}`,
  );
  await waitFor(() => service.app.server.listening, { what: "listening" });
  const closing = service.close(1000);
  await waitFor(() => !service.app.server.listening, { what: "the server to close" });
  socket.write(`${body.slice(5)}GET /task?limit=1 HTTP/1.1\r\nHost: x\r\n\r\n`);
  await ended;
  await closing;

  const responses = received.split(/(?=HTTP\/1\.1 )/).filter((r) => r.startsWith("HTTP/1.1"));
  t.ok(responses.length >= 1, `answered (${responses.length} response(s))`);
  const unavailable = responses.filter((r) => r.startsWith("HTTP/1.1 503"));
  t.ok(unavailable.length >= 1, "the request that came while closing got a 503");
  for (const r of unavailable) {
    t.match(r, /\r\nretry-after: 5\r\n/i, "with Retry-After");
    t.match(r, /"error":"ShuttingDown"/, "from the catalogue");
    t.notMatch(r, /"error":"Service Unavailable"/, "not fastify's own");
  }
});
