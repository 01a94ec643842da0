// A route's error answers in its schema, generated from the error catalogue: the OpenAPI document then says, for
// each status, which codes the route answers and when, in the catalogue's words.
import { Type } from "@sinclair/typebox";
import { API_ERRORS, type ApiErrorCode } from "./error-catalogue.ts";
import { ErrorResponse } from "./schemas.ts";

const errorRef = Type.Ref(ErrorResponse);
type ErrorAnswer = typeof errorRef & { description: string };

/**
 * What a route that may hand its request to Clouddriver (CLOUDDRIVER_URL) answers beside its own, before Clouddriver
 * does: a path that would leave Clouddriver's URL (400), Clouddriver unreachable (502) or too slow (504).
 */
export const FORWARDING_ERRORS = [
  "InvalidPath",
  "ClouddriverUnavailable",
  "ClouddriverTimeout",
] as const satisfies readonly ApiErrorCode[];

/** `response` entries for the codes a route answers: one per status, naming each of its codes. */
export function errorResponses(...codes: ApiErrorCode[]): Record<number, ErrorAnswer> {
  const byStatus = new Map<number, ApiErrorCode[]>();
  for (const code of codes) {
    const status = API_ERRORS[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, named]) => [
      status,
      { ...errorRef, description: named.map((code) => `${code}: ${API_ERRORS[code].when}`).join(". ") },
    ]),
  );
}
