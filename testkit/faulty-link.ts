// A TCP link that a test can spoil the way networks do, in front of a real server (PostgreSQL here): black-hole it
// (connections are accepted and stay open, and nothing goes through either way: no error, no answer), heal it (the
// black-holed connections are reset, as they are once TCP gives up, and new ones go through), or slow it (every
// chunk either way is held for a while, in order).
import { connect, createServer, type Socket } from "node:net";

export interface FaultyLink {
  port: number;
  /** From now on nothing goes through, on open connections or new ones; nobody is told. */
  blackHole(): void;
  /** Black-holed connections are reset; new ones go through again. */
  heal(): void;
  /** Every chunk sent from now on waits between minMs and maxMs before it is passed on (0, 0: none). */
  delay(minMs: number, maxMs: number): void;
  /** Chunks held or dropped since the link was made, either way. */
  readonly dropped: number;
  close(): Promise<void>;
}

interface Connection {
  client: Socket;
  upstream: Socket | undefined;
  blackHoled: boolean;
  /** When the last chunk each way goes out: a held chunk never overtakes the one before it. */
  nextOut: { up: number; down: number };
}

export async function faultyLink(target: { host: string; port: number }): Promise<FaultyLink> {
  const connections = new Set<Connection>();
  let blackHoled = false;
  let delayMs: [number, number] = [0, 0];
  let dropped = 0;

  const pass = (c: Connection, to: Socket, chunk: Buffer, way: "up" | "down") => {
    if (c.blackHoled) {
      dropped++;
      return;
    }
    const [min, max] = delayMs;
    if (max <= 0) return void to.write(chunk);
    const at = Math.max(Date.now() + min + Math.random() * (max - min), c.nextOut[way]);
    c.nextOut[way] = at;
    setTimeout(() => c.blackHoled || to.destroyed || to.write(chunk), at - Date.now());
  };

  const server = createServer((client) => {
    const c: Connection = { client, upstream: undefined, blackHoled, nextOut: { up: 0, down: 0 } };
    connections.add(c);
    const end = () => {
      connections.delete(c);
      client.destroy();
      c.upstream?.destroy();
    };
    client.on("error", end).on("close", end);
    client.on("data", (chunk: Buffer) => (c.upstream ? pass(c, c.upstream, chunk, "up") : dropped++));
    if (c.blackHoled) return;
    const upstream = connect(target.port, target.host);
    c.upstream = upstream;
    upstream.on("error", end).on("close", end);
    upstream.on("data", (chunk: Buffer) => pass(c, client, chunk, "down"));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return {
    port: (server.address() as { port: number }).port,
    blackHole() {
      blackHoled = true;
      for (const c of connections) c.blackHoled = true;
    },
    heal() {
      blackHoled = false;
      for (const c of connections) if (c.blackHoled) c.client.resetAndDestroy();
    },
    delay(minMs, maxMs) {
      delayMs = [minMs, maxMs];
    },
    get dropped() {
      return dropped;
    },
    async close() {
      const closed = new Promise<void>((r) => server.close(() => r()));
      for (const c of connections) {
        c.client.destroy();
        c.upstream?.destroy();
      }
      await closed;
    },
  };
}
