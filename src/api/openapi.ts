// The OpenAPI document: how it is generated from the route schemas (scripts/write-openapi.ts, with @fastify/swagger
// in the app that buildApp makes for it) and where the checked-in copy lives, which the service serves.
import type { SwaggerOptions } from "@fastify/swagger";

export const API_VERSION = "0.1.0";

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
    },
    tags: [
      { name: "operations", description: "Start operations; each answers 202 with a task" },
      { name: "tasks", description: "Poll tasks" },
      { name: "audit", description: "Who changed what: the audit trail, read-only" },
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
