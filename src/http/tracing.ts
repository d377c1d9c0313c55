import type { FastifyInstance } from 'fastify';
import type { TracingSettings } from '../config';
import type { SpanAttributes, SpanNotes, SpanOptions, Tracing, TracingLog } from './tracing-otel';

/*
 * Traces (docs/operations.md, Traces): OpenTelemetry spans of each request, SQL statement, webhook
 * delivery and planning job, sent to an OTLP endpoint when one is configured. This module is all
 * that is loaded without one: the SDK (tracing-otel.ts) is imported by `startTracing` only, no hook
 * is installed, the database's driver is not wrapped, and `inSpan` calls its work directly.
 */

export type { SpanAttributes, SpanNotes, SpanOptions, Tracing };

let running: Tracing | undefined;

/**
 * Starts tracing when `settings` says where to send it; undefined otherwise. Call it before the
 * database opens (its statements are traced only if tracing runs then) and before the app is built;
 * `shutdown()` it last, after the database closes, so that the spans of the end are sent.
 */
export async function startTracing(settings: TracingSettings | undefined, log: TracingLog): Promise<Tracing | undefined> {
  if (!settings) return undefined;
  if (running) throw new Error('tracing is already running in this process');
  const { startOpenTelemetry } = await import('./tracing-otel');
  running = startOpenTelemetry(settings, log, () => {
    running = undefined;
  });
  return running;
}

/** Spans each request of `app` when tracing runs; nothing otherwise. */
export function installTracing(app: FastifyInstance): void {
  running?.installRequestSpans(app);
}

/**
 * Runs `work` in a span named `name` when tracing runs (a child of the request's span unless
 * `root`); `work` gets the span to add to, or undefined when tracing does not run. `attributes`
 * may be a function, called only when tracing runs.
 */
export function inSpan<T>(name: string, attributes: SpanAttributes | (() => SpanAttributes), work: (span: SpanNotes | undefined) => Promise<T>, options?: SpanOptions): Promise<T> {
  return running ? running.inSpan(name, attributes, work, options) : work(undefined);
}

/**
 * Where a URL points (`server.address`, `server.port`, `url.scheme`), for a span: its path, query
 * and credentials are left out, since a webhook URL often carries the receiver's secret there.
 */
export function destinationAttributes(url: string): SpanAttributes {
  try {
    const parsed = new URL(url);
    const scheme = parsed.protocol.slice(0, -1);
    return { 'server.address': parsed.hostname, 'server.port': Number(parsed.port) || (scheme === 'https' ? 443 : 80), 'url.scheme': scheme };
  } catch {
    return {};
  }
}
