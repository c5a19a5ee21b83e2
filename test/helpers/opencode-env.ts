import { join } from "node:path";

/**
 * The environment of an OpenCode process run directly by a test: a private HOME with its XDG
 * directories, none of the caller's OPENCODE_* settings, no model-list fetch or self-update, and the
 * configuration inline when one is given.
 */
export function isolatedOpencodeEnv(home: string, config?: unknown): NodeJS.ProcessEnv {
  return {
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("OPENCODE_"))),
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    XDG_CACHE_HOME: join(home, ".cache"),
    ...(config === undefined ? {} : { OPENCODE_CONFIG_CONTENT: JSON.stringify(config) }),
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
  };
}
