import type { Server } from "node:http";
import type { AddressInfo } from "node:net";

/** Listens on 127.0.0.1 (port 0: a free one) and returns the port: the local servers (scripted model, RCM proxy) are never reachable from elsewhere. */
export async function listenOnLoopback(server: Server, port = 0): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

/** Closes the server and every open connection (streams in flight included). */
export function closeServer(server: Server): Promise<void> {
  return new Promise<void>((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
