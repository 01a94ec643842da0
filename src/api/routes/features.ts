// GET /features/stages, as Clouddriver answers it (FeaturesController: one {name, enabled} per operation it can run).
// Orca asks while planning a deploy stage (CreateServerGroupStage.groovy l.70, FeaturesService.java l.31-37:
// whether upsertEntityTags is available), so without this the stage fails before any write. Registered only when no
// Clouddriver is behind this service; with one, the request is forwarded and Clouddriver answers for both.
import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";

export const StageFeature = Type.Object(
  { name: Type.String(), enabled: Type.Boolean() },
  { $id: "StageFeature", additionalProperties: false },
);

// eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
export const featureRoutes: FastifyPluginAsyncTypebox<{ operations: string[] }> = async (app, opts) => {
  const stages = opts.operations.map((name) => ({ name, enabled: true }));
  app.get(
    "/features/stages",
    {
      schema: {
        operationId: "getStageFeatures",
        description:
          "Orca's FeaturesService asks which stages it may run (Clouddriver's GET /features/stages): each operation this service runs, enabled. Not served when CLOUDDRIVER_URL is set: Clouddriver answers it.",
        summary: "The operations this service runs, as Clouddriver lists them for Orca",
        tags: ["clouddriver"],
        response: {
          200: {
            ...Type.Array(StageFeature),
            description: "One entry per operation; upsertEntityTags is not among them",
          },
        },
      },
    },
    () => stages,
  );
};
