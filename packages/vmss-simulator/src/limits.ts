// Azure limits checked on every write, answered with the codes and wording Azure uses.
import { ArmError, invalidParameter, invalidRequestContent } from "./arm-errors.ts";
import { getPath, isObject, type JsonObject } from "./json.ts";

export const MAX_TAGS = 50;
export const MAX_TAG_NAME_LENGTH = 512;
export const MAX_TAG_VALUE_LENGTH = 256;
export const MIN_CAPACITY = 0;
export const MAX_CAPACITY = 1000;
export const UPGRADE_MODES = ["Manual", "Automatic", "Rolling"] as const;
export type UpgradeMode = (typeof UPGRADE_MODES)[number];

// `<`, `>`, `%`, `&`, `\`, `?`, `/` and control characters are refused in tag names.
// eslint-disable-next-line no-control-regex -- control characters are among what Azure refuses in a tag name
const RESERVED_TAG_NAME_CHARS = /[<>%&\\?/\u0000-\u001f\u007f]/;

/** Checks a `tags` value (absent is fine). Throws the ArmError Azure would answer. */
export function validateTags(tags: unknown): void {
  if (tags === undefined || tags === null) return;
  if (!isObject(tags))
    throw invalidRequestContent(
      "Error converting value to type 'System.Collections.Generic.IDictionary`2[System.String,System.String]'. Path 'tags'",
    );
  const names = Object.keys(tags);
  if (names.length > MAX_TAGS) {
    throw new ArmError(
      400,
      "InvalidTags",
      `Too many tags specified. Requested tag count - '${names.length}'. Maximum number of tags allowed - '${MAX_TAGS}'.`,
      { target: "tags" },
    );
  }
  for (const name of names) {
    if (name.trim() === "") {
      throw new ArmError(
        400,
        "InvalidTagName",
        "The tag name must be non-null, non-empty and non-whitespace only. Please provide an actual value.",
        { target: "tags" },
      );
    }
    const value = tags[name];
    if (typeof value !== "string")
      throw invalidRequestContent(
        `Unexpected value for tag '${name}': tag values must be strings. Path 'tags.${name}'`,
      );
  }
  const reserved = names.filter((n) => RESERVED_TAG_NAME_CHARS.test(n));
  if (reserved.length > 0) {
    throw new ArmError(
      400,
      "InvalidTagNameCharacters",
      `The tag names '${reserved.join(", ")}' have reserved characters '<,>,%,&,\\,?,/' or control characters.`,
      { target: "tags" },
    );
  }
  const longNames = names.filter((n) => n.length > MAX_TAG_NAME_LENGTH);
  if (longNames.length > 0) {
    throw new ArmError(
      400,
      "InvalidTagName",
      `Tag key too large. Following tag name '${longNames.join(", ")}' exceeded the maximum length. Maximum allowed length for tag name - '${MAX_TAG_NAME_LENGTH}' characters.`,
      { target: "tags" },
    );
  }
  const longValues = names.filter((n) => (tags[n] as string).length > MAX_TAG_VALUE_LENGTH);
  if (longValues.length > 0) {
    throw new ArmError(
      400,
      "InvalidTagValueLength",
      `Tag value too large. Following tag value '${longValues.map((n) => tags[n] as string).join(", ")}' exceeded the maximum length. Maximum allowed length for tag value - '${MAX_TAG_VALUE_LENGTH}' characters. (tag name: '${longValues.join(", ")}')`,
      { target: "tags" },
    );
  }
}

/** Checks `sku.capacity` (absent is fine). */
export function validateCapacity(capacity: unknown): void {
  if (capacity === undefined || capacity === null) return;
  if (typeof capacity !== "number" || !Number.isFinite(capacity)) {
    throw invalidParameter("The value of parameter sku.capacity is invalid.", "sku.capacity");
  }
  if (!Number.isInteger(capacity) || capacity < MIN_CAPACITY || capacity > MAX_CAPACITY) {
    throw invalidParameter(
      `The value ${capacity} of parameter 'sku.capacity' is out of range. The value must be between '${MIN_CAPACITY}' and '${MAX_CAPACITY}', inclusive.`,
      "sku.capacity",
    );
  }
}

export function validateUpgradeMode(mode: unknown): void {
  if (mode === undefined || mode === null) return;
  if (typeof mode !== "string" || normalizeUpgradeMode(mode) === undefined) {
    throw invalidParameter(
      `The value '${typeof mode === "string" ? mode : JSON.stringify(mode)}' of parameter 'upgradePolicy.mode' is invalid. Allowed values are: ${UPGRADE_MODES.join(", ")}.`,
      "properties.upgradePolicy.mode",
    );
  }
}

export function normalizeUpgradeMode(mode: string): UpgradeMode | undefined {
  return UPGRADE_MODES.find((m) => m.toLowerCase() === mode.toLowerCase());
}

/** Every limit the simulator enforces on a scale-set model (the model after a PATCH merge, or a PUT body). */
export function validateModel(model: JsonObject): void {
  validateTags(model.tags);
  if (model.sku !== undefined && model.sku !== null && !isObject(model.sku))
    throw invalidParameter("The value of parameter sku is invalid.", "sku");
  validateCapacity(getPath(model, "sku", "capacity"));
  if (model.properties !== undefined && model.properties !== null && !isObject(model.properties)) {
    throw invalidParameter("The value of parameter properties is invalid.", "properties");
  }
  validateUpgradeMode(getPath(model, "properties", "upgradePolicy", "mode"));
}
