import type { RedisOptions } from "ioredis";
import { inputError } from "../core/errors.js";

/** The environment variable a queue URL may come from, so that a password never shows in `ps`. */
export const queueUrlEnv = "SWITCH_SWE_QUEUE";

export interface QueueTarget {
  /** Connection options for ioredis (password and TLS included). */
  redis: RedisOptions;
  /** The URL with its credentials masked: the only form ever printed or stored. */
  display: string;
}

/**
 * Parses `redis://[[user]:password@]host[:port][/db]` or `rediss://...` (TLS). The password never
 * appears in what this returns for display, nor in any error message.
 */
export function parseQueueUrl(text: string, flag = "--queue"): QueueTarget {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw inputError(flag, "", "not a URL (expected redis://HOST:PORT/DB or rediss://...)");
  }
  if (url.protocol !== "redis:" && url.protocol !== "rediss:") {
    throw inputError(flag, "", `unsupported scheme "${url.protocol.replace(/:$/, "")}" (expected redis or rediss)`);
  }
  if (url.hostname === "") throw inputError(flag, "", "the URL names no host");
  const port = url.port === "" ? 6379 : Number(url.port);
  const dbText = url.pathname.replace(/^\//, "");
  const db = dbText === "" ? 0 : Number(dbText);
  if (!Number.isInteger(db) || db < 0) throw inputError(flag, "", `database "${dbText}" is not a non-negative integer`);
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const redis: RedisOptions = {
    host,
    port,
    db,
    maxRetriesPerRequest: null,
    ...(url.username !== "" ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password !== "" ? { password: decodeURIComponent(url.password) } : {}),
    ...(url.protocol === "rediss:" ? { tls: { servername: host } } : {}),
  };
  const auth = url.username !== "" || url.password !== "" ? `${url.username}${url.password !== "" ? ":***" : ""}@` : "";
  return { redis, display: `${url.protocol}//${auth}${url.host}/${db}` };
}

/** The URL from the option, else from $SWITCH_SWE_QUEUE; undefined when neither is set. */
export function queueUrlFrom(option: string | undefined): string | undefined {
  if (option !== undefined && option !== "") return option;
  const env = process.env[queueUrlEnv];
  return env !== undefined && env !== "" ? env : undefined;
}
