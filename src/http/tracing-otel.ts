import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Span, type Tracer } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, type ReadableSpan, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import {
  ATTR_CLIENT_ADDRESS,
  ATTR_DB_OPERATION_NAME,
  ATTR_DB_QUERY_TEXT,
  ATTR_DB_RESPONSE_STATUS_CODE,
  ATTR_DB_SYSTEM_NAME,
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_NETWORK_PROTOCOL_VERSION,
  ATTR_SERVICE_NAME,
  ATTR_SERVICE_VERSION,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
  ATTR_USER_AGENT_ORIGINAL,
  DB_SYSTEM_NAME_VALUE_POSTGRESQL,
} from '@opentelemetry/semantic-conventions';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TracingSettings } from '../config';
import { traceStatements, type StatementTracer } from '../db/statement-spans';
import { SERVICE_VERSION } from '../version';

// The OpenTelemetry side of the tracing, loaded by tracing.ts only when an endpoint is configured.

/** Attributes of a span; undefined values are left out. */
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

/** What the code running in a span may add to it. */
export interface SpanNotes {
  set(attributes: SpanAttributes): void;
  /** Marks the span failed, `errorType` its `error.type` (a code, never a message: messages may hold values). */
  fail(errorType: string): void;
}

export interface SpanOptions {
  /** `client` for a call out of the service (a webhook delivery); default `internal`. */
  kind?: 'internal' | 'client';
  /** A trace of its own rather than a child of the span running (a delivery outside requests). */
  root?: boolean;
}

export type TracingLog = { warn(fields: object, message: string): void };

/** The tracing of this process while it runs. */
export interface Tracing {
  /** Spans each request answered by `app` (Fastify hooks). */
  installRequestSpans(app: FastifyInstance): void;
  /** Runs `work` in a span named `name`, a child of the span running (the request's) unless `root`. */
  inSpan<T>(name: string, attributes: SpanAttributes | (() => SpanAttributes), work: (span: SpanNotes) => Promise<T>, options?: SpanOptions): Promise<T>;
  /** Sends every span ended so far. */
  forceFlush(): Promise<void>;
  /** Sends the spans left and stops tracing (a later start may trace again). */
  shutdown(): Promise<void>;
}

/** The request id the service answers in `x-request-id`, on every request span. */
export const ATTR_REQUEST_ID = 'pickport.request_id';
/** The names of the conventions before the stable database ones (v1.26), which many backends still read. */
const ATTR_DB_SYSTEM_LEGACY = 'db.system';
const ATTR_DB_STATEMENT_LEGACY = 'db.statement';
/** The name `prepared` gave a statement (src/db/prepared.ts). */
const ATTR_STATEMENT_NAME = 'pickport.db.statement_name';
/** Longer statement texts (a batch's VALUES lists) are cut here. */
const MAX_STATEMENT_LENGTH = 4096;
/** ExportResultCode.SUCCESS of @opentelemetry/core. */
const EXPORT_SUCCESS = 0;
/** Failed exports are logged at most this often. */
const EXPORT_WARNING_INTERVAL_MS = 60_000;

/**
 * Starts the SDK: a tracer provider for `settings`' service, batching its spans to the OTLP/HTTP
 * endpoint (JSON), with the AsyncLocalStorage context manager and W3C trace context registered
 * globally, and the database's statements traced (src/db/statement-spans.ts). `stopped` is called
 * as shutdown begins.
 */
export function startOpenTelemetry(settings: TracingSettings, log: TracingLog, stopped: () => void): Tracing {
  const exporter = new WarningExporter(new OTLPTraceExporter({ url: settings.endpoint }), settings.endpoint, log);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_VERSION]: SERVICE_VERSION,
      ...settings.resourceAttributes,
      [ATTR_SERVICE_NAME]: settings.serviceName,
    }),
    spanProcessors: [new BatchSpanProcessor(exporter)],
  });
  provider.register();
  const tracer = provider.getTracer('pickport', SERVICE_VERSION);
  traceStatements(statementTracer(tracer));
  return {
    installRequestSpans: (app) => installRequestSpans(app, tracer),
    inSpan: (name, attributes, work, options = {}) => inSpan(tracer, name, attributes, work, options),
    forceFlush: () => provider.forceFlush(),
    async shutdown() {
      stopped();
      traceStatements(undefined);
      try {
        await provider.shutdown();
      } finally {
        trace.disable();
        context.disable();
        propagation.disable();
      }
    },
  };
}

async function inSpan<T>(tracer: Tracer, name: string, attributes: SpanAttributes | (() => SpanAttributes), work: (span: SpanNotes) => Promise<T>, options: SpanOptions): Promise<T> {
  const parent = options.root ? ROOT_CONTEXT : context.active();
  const kind = options.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL;
  const span = tracer.startSpan(name, { kind, attributes: typeof attributes === 'function' ? attributes() : attributes }, parent);
  const notes: SpanNotes = {
    set: (more) => span.setAttributes(more),
    fail: (errorType) => failed(span, errorType),
  };
  try {
    return await context.with(trace.setSpan(parent, span), () => work(notes));
  } catch (error) {
    failed(span, errorType(error));
    throw error;
  } finally {
    span.end();
  }
}

function failed(span: Span, type: string): void {
  span.setAttribute(ATTR_ERROR_TYPE, type);
  span.setStatus({ code: SpanStatusCode.ERROR });
}

/** An error's code (an ApiError's, a SQLSTATE, a Node.js `E…`), else its class's name: never its message, which may hold values. */
function errorType(error: unknown): string {
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  return typeof code === 'string' && code !== '' ? code : typeof name === 'string' ? name : 'Error';
}

/**
 * Request spans: begun by the first onRequest hook, whose `done` runs in the request's context,
 * ended when the answer has gone (or the client went away). Everything a request runs from there,
 * its SQL and its planning, is a child of its span: Fastify carries the context across reading the
 * body (an AsyncResource), and AsyncLocalStorage across every await.
 */
function installRequestSpans(app: FastifyInstance, tracer: Tracer): void {
  const spans = new WeakMap<FastifyRequest, Span>();
  app.addHook('onRequest', (request, _reply, done) => {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers);
    const query = request.url.indexOf('?');
    const span = tracer.startSpan(
      request.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR_HTTP_REQUEST_METHOD]: request.method,
          [ATTR_URL_PATH]: query === -1 ? request.url : request.url.slice(0, query),
          [ATTR_URL_SCHEME]: request.protocol,
          [ATTR_NETWORK_PROTOCOL_VERSION]: request.raw.httpVersion,
          [ATTR_CLIENT_ADDRESS]: request.ip,
          [ATTR_USER_AGENT_ORIGINAL]: request.headers['user-agent'],
          [ATTR_REQUEST_ID]: request.id,
        },
      },
      parent,
    );
    spans.set(request, span);
    context.with(trace.setSpan(parent, span), done);
  });
  const end = (request: FastifyRequest, statusCode: number | undefined) => {
    const span = spans.get(request);
    if (!span) return;
    spans.delete(request);
    // The route's pattern, never the URL sent: span names stay few (none for a request no route matched).
    const route = request.routeOptions.url;
    if (route !== undefined) {
      span.updateName(`${request.method} ${route}`);
      span.setAttribute(ATTR_HTTP_ROUTE, route);
    }
    if (statusCode === undefined) failed(span, 'aborted');
    else {
      span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, statusCode);
      if (statusCode >= 500) failed(span, String(statusCode));
    }
    span.end();
  };
  app.addHook('onResponse', (request, reply, done) => {
    end(request, reply.statusCode);
    done();
  });
  app.addHook('onRequestAbort', (request, done) => {
    end(request, undefined);
    done();
  });
}

/**
 * A span for each statement (each of a pipelined write), COMMIT and ROLLBACK, under the span
 * running: statements outside a request, a delivery or a planning job (the delivery worker's
 * polls, migrations, housekeeping) are not traced, or every poll would be a trace of its own. The
 * text as sent, its values never: every value is bound as a parameter.
 */
function statementTracer(tracer: Tracer): StatementTracer {
  return {
    async trace(texts, send) {
      const parent = context.active();
      if (trace.getSpan(parent) === undefined) return send();
      const spans = texts.map((text) => tracer.startSpan(...statementSpan(text), parent));
      try {
        return await send();
      } catch (error) {
        const type = errorType(error);
        for (const span of spans) {
          // A SQLSTATE: the error is the server's (node-postgres and PGlite both give its severity).
          if ((error as { severity?: unknown }).severity !== undefined) span.setAttribute(ATTR_DB_RESPONSE_STATUS_CODE, type);
          failed(span, type);
        }
        throw error;
      } finally {
        for (const span of spans) span.end();
      }
    },
  };
}

const LEADING_COMMENTS = /^(?:\s+|\/\*.*?\*\/|--[^\n]*\n)*/s;
const NAMED = /^\/\* prepared ([a-z_][a-z0-9_]*) \*\//;

function statementSpan(text: string): [string, { kind: SpanKind; attributes: SpanAttributes }] {
  const name = NAMED.exec(text)?.[1];
  const operation = /^[A-Za-z]+/.exec(text.replace(LEADING_COMMENTS, ''))?.[0]?.toUpperCase() ?? 'SQL';
  const statement = text.length > MAX_STATEMENT_LENGTH ? `${text.slice(0, MAX_STATEMENT_LENGTH)}…` : text;
  return [
    name ? `${operation} ${name}` : operation,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [ATTR_DB_SYSTEM_NAME]: DB_SYSTEM_NAME_VALUE_POSTGRESQL,
        [ATTR_DB_SYSTEM_LEGACY]: DB_SYSTEM_NAME_VALUE_POSTGRESQL,
        [ATTR_DB_OPERATION_NAME]: operation,
        [ATTR_DB_QUERY_TEXT]: statement,
        [ATTR_DB_STATEMENT_LEGACY]: statement,
        [ATTR_STATEMENT_NAME]: name,
      },
    },
  ];
}

/** The OTLP exporter, logging a failed export (at most once a minute): otherwise spans would be dropped without a word. */
class WarningExporter implements SpanExporter {
  #lastWarning = -Infinity;
  #failed = 0;

  constructor(
    private readonly exporter: SpanExporter,
    private readonly endpoint: string,
    private readonly log: TracingLog,
  ) {}

  export(spans: ReadableSpan[], done: Parameters<SpanExporter['export']>[1]): void {
    this.exporter.export(spans, (result) => {
      if (result.code !== EXPORT_SUCCESS) {
        this.#failed += spans.length;
        const now = Date.now();
        if (now - this.#lastWarning >= EXPORT_WARNING_INTERVAL_MS) {
          this.#lastWarning = now;
          this.log.warn({ err: result.error, droppedSpans: this.#failed, endpoint: printable(this.endpoint) }, 'traces could not be sent to the OTLP endpoint; their spans are dropped');
          this.#failed = 0;
        }
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.exporter.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.exporter.forceFlush?.() ?? Promise.resolve();
  }
}

/** The endpoint without credentials or query, for the log. */
function printable(endpoint: string): string {
  const url = new URL(endpoint);
  return `${url.origin}${url.pathname}`;
}
