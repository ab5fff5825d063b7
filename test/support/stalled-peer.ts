import { createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP peer on 127.0.0.1 for fault tests: it accepts connections and reads what it is sent, but
 * never answers (a stalled database). `refuse()` closes it and every open connection, so the port
 * then refuses connections (a database that is down).
 */
export interface StalledPeer {
  endpoint: string;
  port: number;
  /** Connections accepted so far. */
  connections(): number;
  /** Connections that were closed by the client (torn down after a timeout or an abort). */
  closedByClient(): number;
  refuse(): Promise<void>;
  close(): Promise<void>;
}

export async function startStalledPeer(): Promise<StalledPeer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  let closedByClient = 0;
  let closing = false;
  const server: Server = createServer((socket) => {
    accepted++;
    sockets.add(socket);
    socket.on('data', () => undefined);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      sockets.delete(socket);
      if (!closing) closedByClient++;
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const shut = async () => {
    closing = true;
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
  };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    port,
    connections: () => accepted,
    closedByClient: () => closedByClient,
    refuse: shut,
    close: shut,
  };
}
