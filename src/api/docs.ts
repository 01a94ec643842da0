// The API documentation, open to all: GET /openapi.json is the checked-in document (openapi/openapi.json, generated
// from the route schemas), and /docs is Swagger UI over it. Swagger UI and its assets are loaded on the first
// request to /docs, in an app of their own that this one passes those requests to: few callers ever ask, and
// loading it cost every start.
import { readFile } from "node:fs/promises";
import type { StaticDocumentSpec } from "@fastify/swagger";
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import { BEARER_SCHEME, OPENAPI_FILE } from "./openapi.ts";

/** Headers that belong to the inner answer's connection, not to the content. */
const CONNECTION_HEADERS = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "date"]);

async function swaggerUiApp(document: string): Promise<FastifyInstance> {
  const [{ default: Fastify }, { default: swagger }, { default: swaggerUi }] = await Promise.all([
    import("fastify"),
    import("@fastify/swagger"),
    import("@fastify/swagger-ui"),
  ]);
  const ui = Fastify({ logger: false });
  await ui.register(swagger, {
    mode: "static",
    specification: { document: JSON.parse(document) as StaticDocumentSpec["document"] },
  });
  await ui.register(swaggerUi, { routePrefix: "/docs" });
  await ui.ready();
  return ui;
}

/** The name of the OpenID Connect security scheme the served document gains when Entra ID tokens are accepted. */
export const OIDC_SCHEME = "entraId";

interface DocumentParts {
  components?: { securitySchemes?: Record<string, unknown> };
  paths?: Record<string, Record<string, { security?: Record<string, string[]>[] }>>;
}

/**
 * The checked-in document as this service serves it: where OpenID Connect tokens are accepted, an `openIdConnect`
 * scheme with the issuer's discovery URL, offered beside the bearer scheme wherever a token is asked for, so that a
 * generator or Swagger UI can find the issuer. The checked-in file stays the same whatever the configuration.
 */
export function servedDocument(text: string, oidcDiscoveryUrl: string | undefined): string {
  const document = JSON.parse(text) as DocumentParts;
  if (oidcDiscoveryUrl) {
    document.components = { ...document.components };
    document.components.securitySchemes = {
      ...document.components.securitySchemes,
      [OIDC_SCHEME]: {
        type: "openIdConnect",
        openIdConnectUrl: oidcDiscoveryUrl,
        description: "A Microsoft Entra ID (OpenID Connect) access token for this service, sent as a bearer token",
      },
    };
    for (const operations of Object.values(document.paths ?? {}))
      for (const operation of Object.values(operations)) {
        const security = operation.security;
        if (security?.some((r) => BEARER_SCHEME in r)) security.push({ [OIDC_SCHEME]: [] });
      }
  }
  return JSON.stringify(document);
}

export interface DocsOptions {
  /** The OpenID Connect discovery document, when Entra ID tokens are accepted. */
  oidcDiscoveryUrl?: string;
}

// eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
export const docsRoutes: FastifyPluginAsync<DocsOptions> = async (app, { oidcDiscoveryUrl }) => {
  // Compact, as the file is indented for reading diffs.
  let document: Promise<string> | undefined;
  const openApiDocument = () =>
    (document ??= readFile(OPENAPI_FILE, "utf8").then(
      (text) => servedDocument(text, oidcDiscoveryUrl),
      (err) => {
        document = undefined;
        throw err;
      },
    ));
  app.get("/openapi.json", { schema: { hide: true } }, async (_request, reply) =>
    reply.type("application/json; charset=utf-8").send(await openApiDocument()),
  );

  let ui: Promise<FastifyInstance> | undefined;
  const swaggerUi = async (request: FastifyRequest, reply: FastifyReply) => {
    ui ??= openApiDocument()
      .then(swaggerUiApp)
      .catch((err) => {
        ui = undefined;
        throw err;
      });
    const answer = await (
      await ui
    ).inject({ method: request.method as "GET" | "HEAD", url: request.url, headers: request.headers });
    // Not Swagger UI's: this service's own 404.
    if (answer.statusCode === 404) return reply.callNotFound();
    for (const [name, value] of Object.entries(answer.headers))
      if (value !== undefined && !CONNECTION_HEADERS.has(name)) reply.header(name, value);
    reply.code(answer.statusCode);
    return answer.rawPayload.length > 0 ? reply.send(answer.rawPayload) : reply.send();
  };
  app.get("/docs", { schema: { hide: true } }, swaggerUi);
  app.get("/docs/*", { schema: { hide: true } }, swaggerUi);
  app.addHook("onClose", async () => {
    if (ui) await (await ui.catch(() => undefined))?.close();
  });
};
