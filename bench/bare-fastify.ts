// The reference for GET /task/{id}: a bare fastify route that sends the same JSON body, with fastify's defaults
// (no logger). Started as its own process; prints its port.
//
//   node bench/bare-fastify.ts <file with the body>
import { readFileSync } from "node:fs";
import Fastify from "fastify";

const body: unknown = JSON.parse(readFileSync(process.argv[2], "utf8"));
const app = Fastify();
app.get("/task/:id", () => body);
await app.listen({ host: "127.0.0.1", port: 0 });
console.log(`listening ${(app.server.address() as { port: number }).port}`);
