/**
 * `urldedup serve`: the query service over the store until SIGTERM or SIGINT (exit 143 or 130).
 */
import type { Writable } from 'node:stream';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { readTokenFile } from '../../service/auth.js';
import { isLoopbackAddress } from '../../service/host.js';
import { defaultServiceOptions, startService, type Service } from '../../service/server.js';
import type { SeenStore } from '../../store/index.js';
import { integer, presetsFrom } from '../args.js';
import { failure } from '../errors.js';
import { EXIT_OK, EXIT_SIGINT, EXIT_SIGTERM } from '../exit-codes.js';
import { createLogger, LOG_FLAGS_HELP, logFormatFrom, logLevelFrom } from '../logger.js';
import { openForCommand, PRESET_NOTE, STORE_FLAGS, STORE_FLAGS_HELP, storeLocationFrom } from '../store-access.js';

const SERVE_HELP = `Usage: urldedup serve [--db DIR | --redis SEEDS] [options]

Serves the store over HTTP/JSON until SIGTERM or SIGINT (then in-flight requests finish and
the store closes: exit 143 or 130). When it listens it prints one JSON line on stdout:
  {"event":"listening","url":"http://127.0.0.1:7070","host":"127.0.0.1","port":7070,…}

Routes (docs/openapi.yaml): GET /v1/key?url=…, POST /v1/key, POST /v1/admit,
POST /v1/evidence, GET /v1/stats, GET /healthz, GET /metrics (Prometheus).

Options:
${STORE_FLAGS_HELP}
  --host ADDR         address to bind (default ${defaultServiceOptions.host}: this machine only)
  --port N            TCP port, 0 for any free one (default ${defaultServiceOptions.port})
  --token-file FILE   require 'Authorization: Bearer <token>' (the file's text) on every
                      route but /healthz
  --allowed-host NAME answer requests with 'Host: NAME' (or NAME:PORT) too, repeatable; by
                      default only the bound address and localhost names (DNS rebinding: 421)
  --max-body BYTES    largest request body (default ${defaultServiceOptions.maxBody}); more is 413
  --max-batch N       most URLs per request (default ${defaultServiceOptions.maxBatch}); more is 413
  --max-inflight N    requests handled at once (default ${defaultServiceOptions.maxInFlight}); more get 503 + Retry-After
${PRESET_NOTE}
  --verbose           log requests' errors and lifecycle on stderr (--log-level info)
${LOG_FLAGS_HELP}
  -h, --help

Example:
  urldedup serve --db ./seen --port 7070 &
  curl -s 'http://127.0.0.1:7070/v1/key' -G --data-urlencode 'url=HTTP://Example.COM:80/a/../b'
  curl -s http://127.0.0.1:7070/v1/admit -H 'content-type: application/json' \\
       -d '["https://example.com/", "https://example.com:443/"]'
`;

const serveFlags = {
  ...STORE_FLAGS,
  host: { type: 'string' },
  port: { type: 'string' },
  'token-file': { type: 'string' },
  'allowed-host': { type: 'string', multiple: true },
  'max-body': { type: 'string' },
  'max-batch': { type: 'string' },
  'max-inflight': { type: 'string' },
  preset: { type: 'string', multiple: true },
  'change-presets': { type: 'boolean' },
  verbose: { type: 'boolean' },
  'log-level': { type: 'string' },
  'log-format': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

export interface ServeIo {
  readonly stdout?: Writable;
  readonly stderr?: Writable;
  /** Resolves with the signal that stops the service (tests); default: SIGTERM or SIGINT. */
  readonly stopSignal?: Promise<'SIGTERM' | 'SIGINT'>;
}

/** `urldedup serve`: runs until SIGTERM/SIGINT; resolves with 143/130 after a clean shutdown. */
export async function runServeCommand(argv: string[], io: ServeIo = {}): Promise<number> {
  const stdout = io.stdout ?? process.stdout;
  const stderr = io.stderr ?? process.stderr;
  let store: SeenStore | undefined;
  let service: Service | undefined;
  try {
    const { values } = parseArgs({ args: argv, options: serveFlags, allowPositionals: false, strict: true });
    if (values.help) {
      stdout.write(SERVE_HELP);
      return EXIT_OK;
    }
    const port = integer('port', values.port, 0, 65535);
    const maxBody = integer('max-body', values['max-body'], 1);
    const maxBatch = integer('max-batch', values['max-batch'], 1);
    const maxInFlight = integer('max-inflight', values['max-inflight'], 1);
    const presets = presetsFrom(values.preset);
    const log = createLogger(logLevelFrom(values['log-level'], values.verbose ? 'info' : 'warn'), logFormatFrom(values['log-format'], process.stderr.isTTY === true));
    let token: string | undefined;
    if (values['token-file'] !== undefined) {
      const t = await readTokenFile(values['token-file']);
      if (t.warning !== undefined) log.warn(t.warning);
      token = t.token;
    }
    const location = storeLocationFrom(values);

    // listen for the stop signals before the store opens, so none is missed
    const signals = new SignalWatch();
    try {
      store = await openForCommand(location, presets, true, values['change-presets'] === true);
      const maxPendingUrls = Math.max(defaultServiceOptions.maxPendingUrls, maxBatch ?? 0);
      const maxBufferedBytes = Math.max(defaultServiceOptions.maxBufferedBytes, maxBody ?? 0);
      service = await startService(store, {
        ...(values.host === undefined ? {} : { host: values.host }),
        ...(port === undefined ? {} : { port }),
        ...(maxBody === undefined ? {} : { maxBody }),
        ...(maxBatch === undefined ? {} : { maxBatch }),
        ...(maxInFlight === undefined ? {} : { maxInFlight }),
        ...(token === undefined ? {} : { token }),
        ...(values['allowed-host'] === undefined ? {} : { allowedHosts: values['allowed-host'] }),
        maxPendingUrls,
        maxBufferedBytes,
        logger: log,
      });
      stdout.write(
        JSON.stringify({ event: 'listening', url: service.url, host: service.host, port: service.port, db: store.location, pid: process.pid }) + '\n',
      );
      log.info({ url: service.url, db: store.location }, 'listening');
      if (token === undefined && !isLoopbackAddress(service.host)) {
        stderr.write(`urldedup serve: warning: listening on ${service.host}, which other machines can reach, without --token-file: anyone who reaches it can admit URLs and write evidence\n`);
      }
      const signal = await (io.stopSignal ?? signals.first);
      log.info({ signal, inFlight: service.inFlight }, 'shutting down');
      // a second signal cuts the connections still open; the store still closes cleanly
      void signals.second.then(() => service?.abort());
      await service.close();
      const s = store;
      store = undefined;
      await s.close();
      log.info('stopped');
      return signal === 'SIGINT' ? EXIT_SIGINT : EXIT_SIGTERM;
    } finally {
      signals.dispose();
    }
  } catch (error) {
    if (service !== undefined) service.abort();
    if (store !== undefined) await store.close().catch(() => undefined);
    return failure(error, stderr, 'serve');
  }
}

/** SIGTERM and SIGINT as promises, without the default exit while they are watched. */
class SignalWatch {
  private count = 0;
  private resolveFirst!: (s: 'SIGTERM' | 'SIGINT') => void;
  private resolveSecond!: () => void;
  readonly first = new Promise<'SIGTERM' | 'SIGINT'>((r) => (this.resolveFirst = r));
  readonly second = new Promise<void>((r) => (this.resolveSecond = r));
  private readonly onTerm = (): void => this.got('SIGTERM');
  private readonly onInt = (): void => this.got('SIGINT');

  constructor() {
    process.on('SIGTERM', this.onTerm);
    process.on('SIGINT', this.onInt);
  }

  private got(signal: 'SIGTERM' | 'SIGINT'): void {
    if (++this.count === 1) this.resolveFirst(signal);
    else this.resolveSecond();
  }

  dispose(): void {
    process.off('SIGTERM', this.onTerm);
    process.off('SIGINT', this.onInt);
  }
}
