// A request line and headers over Node's maxHeaderSize (16 KB) are refused by Node's HTTP parser before fastify
// routes anything (its clientError event): the answer is still the service's ErrorResponse, with a code the
// catalogue and the API document declare, not fastify's own body.
import t from "tap";
import { maxHeaderSize } from "node:http";
import { connect } from "node:net";
import { readFile } from "node:fs/promises";
import { DEFAULT_OPENAPI_PATH } from "../scripts/write-openapi.ts";
import { startTestEnv } from "./helpers/service.ts";

const env = await startTestEnv();
t.teardown(() => env.close());

/** Sends raw bytes and reads the whole answer, until the service closes the connection. */
function raw(text: string): Promise<string> {
  const { hostname, port } = new URL(env.baseUrl);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.write(text));
    socket.on("data", (c: Buffer) => chunks.push(c));
    socket.on("error", (err) => (chunks.length > 0 ? resolve(Buffer.concat(chunks).toString()) : reject(err)));
    socket.on("close", () => resolve(Buffer.concat(chunks).toString()));
  });
}

t.test("a request line over 16 KB is a 431 in the service's error shape, declared for every route", async (t) => {
  const answer = await raw(`GET /health?pad=${"a".repeat(maxHeaderSize + 1)} HTTP/1.1\r\nHost: localhost\r\n\r\n`);
  const [head, body] = answer.split("\r\n\r\n");
  t.match(head, /^HTTP\/1\.1 431 /);
  t.match(head, /content-type: application\/json/i);
  t.match(JSON.parse(body), {
    statusCode: 431,
    error: "HeadersTooLarge",
    message: new RegExp(`larger than ${maxHeaderSize} bytes`),
  });
  const document = JSON.parse(await readFile(DEFAULT_OPENAPI_PATH, "utf8")) as {
    components: { schemas: { ErrorResponse: { description: string; properties: { error: { enum?: string[] } } } } };
  };
  t.match(document.components.schemas.ErrorResponse.description, /431 HeadersTooLarge/, "declared for every route");
  const garbage = (await raw("NOT HTTP AT ALL\r\n\r\n")).split("\r\n\r\n");
  t.match(garbage[0], /^HTTP\/1\.1 400 /, "bytes that are not HTTP: a 400");
  t.match(JSON.parse(garbage[1]), { statusCode: 400, error: "BadRequest", message: "the request is not valid HTTP" });
  t.equal((await raw("GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")).split(" ")[1], "200");
});
