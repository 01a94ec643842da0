// A JSON document as a test reads it: field by field, straight into assertions. It is `any` on purpose and in tests
// only (eslint.config.js turns the no-unsafe-* rules off for test/): the assertions are the check of its shape, and a
// declared type for every answer would only repeat them. Anything that is not a parsed JSON document gets a real type.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the one named place where a test's JSON is untyped
export type Json = any;
