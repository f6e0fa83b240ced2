/**
 * Two HTTP servers on one port: 127.0.0.2 stands for a public address (tests allow it by
 * address), 127.0.0.1 for a refused one (never allowed). A name an injected resolver maps to one or
 * the other then reaches exactly the server of the address connected to, so "0 requests to the
 * private one" is measured by its own request log and connection count.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface PairSide {
  /** Request lines (`Host` header and target) answered by this side, in order. */
  readonly requests: string[];
  connections: number;
}

export interface LoopbackPair {
  readonly port: number;
  /** 127.0.0.2 */
  readonly public: PairSide;
  /** 127.0.0.1 */
  readonly private: PairSide;
  close(): Promise<void>;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

function side(handler: Handler): { server: Server; log: PairSide; sockets: Set<Socket> } {
  const log: PairSide = { requests: [], connections: 0 };
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    log.requests.push(`${req.headers.host ?? ''} ${req.url ?? ''}`);
    handler(req, res);
  });
  server.on('connection', (s: Socket) => {
    log.connections++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return { server, log, sockets };
}

/** `publicHandler` answers on 127.0.0.2; the private side answers 200 "private" to anything. */
export async function loopbackPair(publicHandler: Handler): Promise<LoopbackPair> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const pub = side(publicHandler);
    await new Promise<void>((r) => pub.server.listen(0, '127.0.0.2', r));
    const port = (pub.server.address() as AddressInfo).port;
    const priv = side((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<a href="/private-link">private</a>'));
    const ok = await new Promise<boolean>((r) => {
      priv.server.once('error', () => r(false));
      priv.server.listen(port, '127.0.0.1', () => r(true));
    });
    const stop = (s: ReturnType<typeof side>): Promise<void> =>
      new Promise((r) => {
        for (const sock of s.sockets) sock.destroy();
        s.server.close(() => r());
      });
    if (ok) {
      return { port, public: pub.log, private: priv.log, close: async () => void (await Promise.all([stop(pub), stop(priv)])) };
    }
    await stop(pub);
  }
  throw new Error('no port free on both 127.0.0.1 and 127.0.0.2');
}
