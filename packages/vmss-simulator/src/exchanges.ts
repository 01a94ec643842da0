// Observers of the simulator's ARM exchanges: each request (method, path, query, body) with the status and body of
// its answer, as sent. Off unless something observes; the specification check (test/simulator-spec.test.ts) records
// the traffic of real clients with it.

export interface ArmExchange {
  method: string;
  /** Pathname as received. */
  path: string;
  /** The api-version query parameter ("" when absent). */
  apiVersion: string;
  /** The parsed JSON body, when one was sent. */
  requestBody?: unknown;
  status: number;
  /** The answer's body as sent; undefined when it had none. */
  responseBody?: unknown;
  userAgent?: string;
}

type Observer = (exchange: ArmExchange) => void;
const observers = new Set<Observer>();

/** Calls `observer` with every ARM exchange of every simulator in this process until the returned function is called. */
export function observeExchanges(observer: Observer): () => void {
  observers.add(observer);
  return () => observers.delete(observer);
}

/** Called as an ARM answer is sent. */
export function reportExchange(
  request: { method: string; url: URL; body: Buffer; userAgent?: string },
  status: number,
  body: unknown,
): void {
  if (observers.size === 0) return;
  let requestBody: unknown;
  const text = request.body.toString("utf8");
  try {
    requestBody = text.trim() === "" ? undefined : JSON.parse(text);
  } catch {
    requestBody = text;
  }
  const exchange: ArmExchange = {
    method: request.method,
    path: request.url.pathname,
    apiVersion: request.url.searchParams.get("api-version") ?? "",
    ...(requestBody === undefined ? {} : { requestBody }),
    status,
    ...(body === undefined ? {} : { responseBody: JSON.parse(JSON.stringify(body)) as unknown }),
    ...(request.userAgent ? { userAgent: request.userAgent } : {}),
  };
  for (const observe of observers) observe(exchange);
}
