// Request bodies: JSON only, parsed here so that every refusal says what is wrong and what would be right.
import type { FastifyInstance } from "fastify";
import { ApiError } from "./errors.ts";

/** JSON text → value; an empty body, text that is not JSON, or a prototype key is a 400 that says so. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === "") throw new ApiError(400, "EmptyBody", "the body is empty: send a JSON object, the operation's description");
  try {
    // A __proto__ or constructor.prototype key would reach objects' prototypes in code that copies the body.
    return JSON.parse(text, (key, value) => {
      if (key === "__proto__" || (key === "constructor" && value !== null && typeof value === "object" && "prototype" in value)) {
        throw new ApiError(400, "ForbiddenKey", `the body has a "${key === "__proto__" ? "__proto__" : "constructor.prototype"}" key, which is refused: remove it (no operation has such a field)`);
      }
      return value;
    });
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw new ApiError(400, "InvalidJson", `the body is not valid JSON (${(err as Error).message}): send a JSON object with content-type: application/json`);
  }
}

export function installJsonBodyParser(app: FastifyInstance): void {
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}
