/**
 * A raw HTTP/1.1 responder on 127.0.0.1 for hostile-server tests: it reads request heads itself
 * and hands the socket to a handler that writes whatever bytes it likes (a bogus status line, a
 * lying Content-Length, broken chunking, one byte per second, an RST mid-body). node:http would
 * refuse to send most of that.
 *
 * Bounded: every socket is destroyed at `close()`, and a request head longer than 64 KiB ends
 * the connection.
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { AllowedEndpoint } from '../../src/crawler/http/guard.js';

export interface RawRequest {
  readonly method: string;
  /** The request target as sent (`/path?query`). */
  readonly target: string;
  /** Header lines, lowercased names. */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Answers one request on `socket`. Call `next()` to read another request on the same connection
 * (keep-alive); otherwise end or destroy the socket when done.
 */
export type RawHandler = (req: RawRequest, socket: Socket, next: () => void) => void;

export interface RawServer {
  readonly port: number;
  readonly origin: string;
  /** Request targets, in order. */
  readonly requests: string[];
  connections(): number;
  readonly allow: AllowedEndpoint[];
  close(): Promise<void>;
}

const MAX_HEAD = 64 * 1024;

export async function rawHttpServer(handler: RawHandler, host = '127.0.0.1'): Promise<RawServer> {
  const requests: string[] = [];
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = Buffer.alloc(0);
    let waiting = true;
    const onData = (chunk: Buffer): void => {
      if (!waiting) return; // body bytes of a request we do not read (GET has none)
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end === -1) {
        if (buffered.length > MAX_HEAD) socket.destroy();
        return;
      }
      const head = buffered.subarray(0, end).toString('latin1');
      buffered = buffered.subarray(end + 4);
      waiting = false;
      const [line = '', ...rest] = head.split('\r\n');
      const [method = '', target = ''] = line.split(' ');
      const headers: Record<string, string> = {};
      for (const h of rest) {
        const colon = h.indexOf(':');
        if (colon > 0) headers[h.slice(0, colon).trim().toLowerCase()] = h.slice(colon + 1).trim();
      }
      requests.push(target);
      handler({ method, target, headers }, socket, () => {
        waiting = true;
        if (buffered.length > 0) {
          const rest = buffered;
          buffered = Buffer.alloc(0);
          onData(rest);
        }
      });
    };
    socket.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://${host}:${port}`,
    requests,
    connections: () => connections,
    allow: [{ address: host, port }],
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A complete response: status line, headers, `content-length`, body; then the connection closes. */
export function respond(socket: Socket, status: number, headers: Readonly<Record<string, string>>, body: string | Buffer = ''): void {
  const b = typeof body === 'string' ? Buffer.from(body) : body;
  const lines = [`HTTP/1.1 ${status} X`, ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), `content-length: ${b.length}`, 'connection: close'];
  socket.end(Buffer.concat([Buffer.from(lines.join('\r\n') + '\r\n\r\n', 'latin1'), b]));
}
