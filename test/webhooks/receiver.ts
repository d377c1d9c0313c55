import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The exact bytes of the body, as a receiver must verify them. */
  raw: Buffer;
  body: { event: string; timestamp: string; data: Record<string, unknown>; test?: boolean };
  at: number;
  /** The sender's port: names the process that sent it (`pidOwningPort` in test/helpers/processes.ts). */
  remotePort: number;
}

/** What the receiver answers to its n-th request (0-based); `hang` never answers, `until` answers once it settles. */
export type Answer = { status?: number; headers?: Record<string, string>; body?: string; hang?: boolean; delayMs?: number; until?: Promise<unknown> };

/** A webhook endpoint on loopback that records every request it gets. */
export class Receiver {
  readonly requests: ReceivedRequest[] = [];
  /** Event ids that arrived while a request of the same event was still unanswered: two senders at once. */
  readonly overlapping: string[] = [];
  /** Per event id, its requests not answered (or dropped) yet. */
  readonly #open = new Map<string, number>();
  answer: (request: ReceivedRequest, n: number) => Answer = () => ({ status: 200 });
  private server: Server;
  url = '';

  constructor() {
    this.server = createServer((req, res) => {
      this.#track(String(req.headers['x-service-event-id'] ?? ''), res);
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        const received: ReceivedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, raw, body: JSON.parse(raw.toString('utf8')), at: performance.now(), remotePort: req.socket.remotePort ?? 0 };
        const n = this.requests.length;
        this.requests.push(received);
        const answer = this.answer(received, n);
        if (answer.hang) return;
        const respond = () => res.writeHead(answer.status ?? 200, answer.headers).end(answer.body ?? 'ok');
        if (answer.until) void answer.until.then(respond, respond);
        else if (answer.delayMs) setTimeout(respond, answer.delayMs);
        else respond();
      });
    });
  }

  /** Counts the request as open from its arrival until its answer is sent or its connection drops. */
  #track(eventId: string, res: ServerResponse): void {
    const open = (this.#open.get(eventId) ?? 0) + 1;
    this.#open.set(eventId, open);
    if (open > 1) this.overlapping.push(eventId);
    res.once('close', () => this.#open.set(eventId, this.#open.get(eventId)! - 1));
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  ofEvent(eventId: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.headers['x-service-event-id'] === eventId);
  }
}

/** How an integrator checks X-Service-Signature: HMAC-SHA256 of the raw body, compared in constant time. */
export function signatureIsValid(request: ReceivedRequest, secret: string): boolean {
  const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(request.raw).digest('hex')}`);
  const given = Buffer.from(String(request.headers['x-service-signature'] ?? ''));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * How an integrator checks the Standard Webhooks headers with the `standardwebhooks` package, as
 * docs/webhooks.md shows it: the secret's bytes, base64-encoded, are the package's key. Answers
 * the parsed body; throws WebhookVerificationError when the signature or the timestamp is refused.
 */
export function verifyStandard(request: Pick<ReceivedRequest, 'raw' | 'headers'>, secret: string): unknown {
  return new Webhook(Buffer.from(secret).toString('base64')).verify(request.raw, request.headers as Record<string, string>);
}
