// The status page itself at /ui (and / leads there): static files, open, as they hold no data; the page reads the
// API with the caller's token.
import { readFileSync } from "node:fs";
import type { FastifyPluginCallback } from "fastify";

const asset = (name: string) => readFileSync(new URL(`./static/${name}`, import.meta.url), "utf8");
const PAGE = asset("index.html");
const SCRIPT = asset("app.js");
const STYLE = asset("style.css");

export const pageRoutes: FastifyPluginCallback = (app, _options, done) => {
  const open = { config: { access: "public" as const }, schema: { hide: true } };
  app.get("/", open, async (_request, reply) => reply.redirect("/ui", 302));
  app.get("/ui", open, async (_request, reply) =>
    reply.type("text/html; charset=utf-8").header("cache-control", "no-store").send(PAGE),
  );
  app.get("/ui/app.js", open, async (_request, reply) => reply.type("text/javascript; charset=utf-8").send(SCRIPT));
  app.get("/ui/style.css", open, async (_request, reply) => reply.type("text/css; charset=utf-8").send(STYLE));
  done();
};
