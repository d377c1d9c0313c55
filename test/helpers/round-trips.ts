import { createServer, connect, type Server } from 'node:net';

/**
 * A TCP proxy to the PostgreSQL server at `url` that counts round trips: the times a client writes
 * after the server answered (or for the first time). Its `url` leads to the same database.
 */
export async function roundTripCounter(url: string): Promise<{ url: string; trips(): number; close(): Promise<void> }> {
  const server = new URL(url);
  let trips = 0;
  const proxy: Server = createServer((client) => {
    const upstream = connect(Number(server.port || 5432), server.hostname);
    let answered = true;
    client.on('data', (chunk) => {
      if (answered) trips++;
      answered = false;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      answered = true;
      client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.on('error', () => {});
    upstream.on('error', () => {});
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  const proxied = new URL(url);
  proxied.hostname = '127.0.0.1';
  proxied.port = String((proxy.address() as { port: number }).port);
  return {
    url: proxied.toString(),
    trips: () => trips,
    close: () => new Promise<void>((resolve) => proxy.close(() => resolve())),
  };
}
