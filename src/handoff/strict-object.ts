import { z } from "zod";

/** A strict object (unknown keys are errors) whose problems are reported in the project's words. */
export function strict<T extends z.ZodRawShape>(shape: T, what: string) {
  return z.strictObject(shape, {
    error: (iss) => {
      if (iss.code === "unrecognized_keys") {
        return `unknown field${iss.keys.length > 1 ? "s" : ""} ${iss.keys.map((k) => `"${k}"`).join(", ")}`;
      }
      return iss.input === undefined ? `missing ${what}` : `${what} must be an object`;
    },
  });
}
