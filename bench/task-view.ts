// A task as GET /task/{id} answers it, as the benchmarks read it: the API's own schema.
import type { Static } from "@sinclair/typebox";
import type { Task } from "../src/api/schemas.ts";

export type TaskView = Static<typeof Task>;
