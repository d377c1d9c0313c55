import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from '../helpers/context';

/** The test context's app listening on loopback: the client talks to it over HTTP, as an integrator does. */
export async function listen(ctx: TestContext): Promise<string> {
  await ctx.app.listen({ host: '127.0.0.1', port: 0 });
  return `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
}

/**
 * What the proxy does with a request: pass it on, answer it itself, cut the connection before
 * passing it on (`drop`), or pass it on and cut the connection instead of answering (`lose-answer`:
 * the service did the work, the client never hears of it).
 */
export type Plan = 'forward' | 'drop' | 'lose-answer' | { status: number; headers?: Record<string, string>; body?: string };

export interface Seen {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The service's status and headers when the request was passed on. */
  answer?: { status: number; headers: IncomingHttpHeaders };
}

/** A proxy in front of the service that fails requests the way networks and load balancers do. */
export class FlakyProxy {
  readonly seen: Seen[] = [];
  plan: (seen: Seen, n: number) => Plan = () => 'forward';
  url = '';
  readonly #server: Server;

  constructor(private readonly target: string) {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const seen: Seen = { method: req.method ?? '', path: req.url ?? '', headers: req.headers };
        const plan = this.plan(seen, this.seen.length);
        this.seen.push(seen);
        if (plan === 'drop') return void req.socket.destroy();
        if (typeof plan === 'object') return void res.writeHead(plan.status, plan.headers).end(plan.body ?? '');
        const upstream = httpRequest(`${this.target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => body.push(chunk));
          answer.on('end', () => {
            seen.answer = { status: answer.statusCode ?? 0, headers: answer.headers };
            if (plan === 'lose-answer') return void req.socket.destroy();
            res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(body));
          });
        });
        upstream.end(Buffer.concat(chunks));
      });
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
    return this;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
