import { randomBytes } from "node:crypto";
import { hostname } from "node:os";

/** A worker's name in the queue: host, pid and a random tag (a restarted process is a new worker). */
export function newWorkerName(): string {
  return `${hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;
}
