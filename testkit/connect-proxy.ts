// One process's link to Azure, as an HTTPS proxy (CONNECT) that a test can cut: the process is given it as
// HTTPS_PROXY, so that only its calls go through it while the URLs it calls (and those Azure hands out for
// long-running operations) stay Azure's own, as they are for every other process. Black-holed, it accepts connections
// and nothing goes through either way, on open tunnels or new ones: no error, no answer. Healed, the black-holed
// connections are reset (as once TCP gives up) and new ones go through.
import { connect, createServer, type Socket } from "node:net";

export interface ConnectProxy {
  /** The URL to give as HTTPS_PROXY. */
  url: string;
  blackHole(): void;
  heal(): void;
  /** Tunnels opened since the proxy was made. */
  readonly tunnels: number;
  close(): Promise<void>;
}

interface Tunnel {
  client: Socket;
  upstream: Socket | undefined;
  blackHoled: boolean;
}

/** Answers a CONNECT to a loopback host with a tunnel to it; anything else is refused. */
function openTunnel(t: Tunnel, head: string, rest: Buffer, onEnd: () => void): void {
  const target = /^CONNECT ([^\s:]+|\[[^\]]+\]):(\d+) HTTP\/1\.[01]\r\n/i.exec(head);
  const host = target?.[1]?.replace(/^\[|\]$/g, "");
  if (!target || !host || !["127.0.0.1", "localhost", "::1"].includes(host)) {
    t.client.end("HTTP/1.1 403 Forbidden\r\n\r\n");
    return;
  }
  const upstream = connect(Number(target[2]), host, () => {
    if (t.blackHoled) return;
    t.client.write("HTTP/1.1 200 Connection Established\r\n\r\n");
    if (rest.length > 0) upstream.write(rest);
  });
  t.upstream = upstream;
  upstream.on("error", onEnd).on("close", onEnd);
  upstream.on("data", (chunk: Buffer) => t.blackHoled || t.client.write(chunk));
}

export async function connectProxy(): Promise<ConnectProxy> {
  const open = new Set<Tunnel>();
  let blackHoled = false;
  let tunnels = 0;
  const server = createServer((client) => {
    const t: Tunnel = { client, upstream: undefined, blackHoled };
    open.add(t);
    const end = () => {
      open.delete(t);
      client.destroy();
      t.upstream?.destroy();
    };
    client.on("error", end).on("close", end);
    let head = Buffer.alloc(0);
    client.on("data", (chunk: Buffer) => {
      if (t.blackHoled) return;
      if (t.upstream) return void t.upstream.write(chunk);
      head = Buffer.concat([head, chunk]);
      const at = head.indexOf("\r\n\r\n");
      if (at < 0) return;
      tunnels++;
      openTunnel(t, head.subarray(0, at + 4).toString("latin1"), head.subarray(at + 4), end);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return {
    url: `http://127.0.0.1:${(server.address() as { port: number }).port}`,
    blackHole() {
      blackHoled = true;
      for (const t of open) t.blackHoled = true;
    },
    heal() {
      blackHoled = false;
      for (const t of open) if (t.blackHoled) t.client.resetAndDestroy();
    },
    get tunnels() {
      return tunnels;
    },
    async close() {
      for (const t of open) t.client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
