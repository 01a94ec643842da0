// The OpenAPI document: how it is generated from the route schemas (scripts/write-openapi.ts, with @fastify/swagger
// in the app that buildApp makes for it) and where the checked-in copy lives, which the service serves.
import type { SwaggerOptions } from "@fastify/swagger";

export const API_VERSION = "0.1.0";

/** The name of the HTTP bearer security scheme in the document (components.securitySchemes). */
export const BEARER_SCHEME = "bearer";

/** openapi/openapi.json, checked in and kept in sync with the routes by test/openapi.test.ts. */
export const OPENAPI_FILE = new URL("../../openapi/openapi.json", import.meta.url);

export const openApiOptions: SwaggerOptions = {
  openapi: {
    openapi: "3.1.0",
    info: {
      title: "vmss-ops",
      version: API_VERSION,
      description:
        "Deployment-stage operations on Azure VM Scale Sets, compatible with Spinnaker Clouddriver's task API. " +
        "Submit an operation, get a task, poll GET /task/{id} until status.completed.",
      license: { name: "Apache-2.0", identifier: "Apache-2.0" },
    },
    servers: [
      {
        url: "{scheme}://{host}",
        description: "where the service listens",
        variables: {
          scheme: { enum: ["http", "https"], default: "http", description: "https when a proxy terminates TLS" },
          host: { default: "localhost:7002", description: "host and port (PORT, 7002 by default)" },
        },
      },
    ],
    components: {
      securitySchemes: {
        [BEARER_SCHEME]: {
          type: "http",
          scheme: "bearer",
          description:
            "A principal's token (AUTH_TOKENS_FILE, AUTH_TOKENS). Without access control configured, every route is open and the token is not needed.",
        },
      },
    },
    tags: [
      { name: "operations", description: "Start operations; each answers 202 with a task" },
      { name: "tasks", description: "Poll tasks" },
      { name: "serverGroups", description: "Read scale sets as Azure reports them" },
      {
        name: "clouddriver",
        description:
          "The Clouddriver reads Orca makes for Azure server groups, served through a short-lived read cache",
      },
      { name: "service", description: "Health and documentation" },
    ],
  },
  refResolver: {
    buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === "string" ? json.$id : `def-${i}`),
  },
};
