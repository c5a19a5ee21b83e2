/** Waits for SIGINT or SIGTERM, then runs `close` (a server command's life: `mock-model`, `rcm proxy`). */
export function untilStopped(close: () => Promise<void>): Promise<void> {
  return new Promise<void>((resolve) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      void close().then(resolve);
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}
