// bench/crawl-floor: the least CPU a crawl of the same requests could spend. It sends exactly the
// requests a urldedup crawl sent (the site's log of them, in order, at the crawl's concurrency)
// with the same undici, the same Accept-Encoding (gzip undone with zlib), tokenizes each HTML
// body with the same htmlparser2 tokenizer, resolves every a/area/link/iframe/frame href and src
// with `new URL` against the page's URL, and puts each result in a `Set`. Nothing else: no store,
// no robots, no guard, no learning, no report. Run in a child process (cold, like the crawl), its
// whole-process CPU (user + sys) is the floor the crawl is measured against
// (bench/crawl-real-site.ts prints both, per page).
//
// Used by bench/crawl-real-site.ts; on its own it is a module, not a command.

import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { Tokenizer, type QuoteType, type TokenizerCallbacks } from 'htmlparser2';
import { Pool } from 'undici';

export interface FloorRequest {
  readonly host: string;
  readonly target: string;
}

export interface FloorResult {
  readonly requests: number;
  readonly pages: number;
  readonly links: number;
  readonly cpuSeconds: number;
}

const LINK_TAGS = new Set(['a', 'area', 'link', 'iframe', 'frame']);

/** The href and src values of the link tags of one document, through htmlparser2's tokenizer. */
class LinkTokens implements TokenizerCallbacks {
  readonly values: string[] = [];
  private readonly tokenizer = new Tokenizer({ xmlMode: false, decodeEntities: true }, this);
  private text = '';
  private tag = '';
  private attr = '';
  private value = '';

  constructor(html: string) {
    this.text = html;
    this.tokenizer.write(html);
    this.tokenizer.end();
  }

  onopentagname(start: number, end: number): void {
    this.tag = this.text.slice(start, end).toLowerCase();
  }
  onattribname(start: number, end: number): void {
    this.attr = LINK_TAGS.has(this.tag) ? this.text.slice(start, end).toLowerCase() : '';
    this.value = '';
  }
  onattribdata(start: number, end: number): void {
    if (this.attr !== '') this.value += this.text.slice(start, end);
  }
  onattribentity(codepoint: number): void {
    if (this.attr !== '') this.value += String.fromCodePoint(codepoint);
  }
  onattribend(_quote: QuoteType, _end: number): void {
    if (this.attr === 'href' || this.attr === 'src') this.values.push(this.value);
    this.attr = '';
  }
  onopentagend(): void {}
  onselfclosingtag(): void {}
  onclosetag(): void {}
  ontext(): void {}
  ontextentity(): void {}
  oncomment(): void {}
  oncdata(): void {}
  ondeclaration(): void {}
  onprocessinginstruction(): void {}
  onend(): void {}
}

async function floor(port: number, requests: readonly FloorRequest[], concurrency: number): Promise<Omit<FloorResult, 'cpuSeconds'>> {
  const pool = new Pool(`http://127.0.0.1:${port}`, { connections: concurrency });
  const seen = new Set<string>();
  let pages = 0;
  let links = 0;
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < requests.length) {
      const r = requests[next++]!;
      const res = await pool.request({ method: 'GET', path: r.target, headers: { host: r.host, 'accept-encoding': 'gzip, deflate, br' } });
      let body = Buffer.from(await res.body.arrayBuffer());
      if (res.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
      if (res.statusCode !== 200 || !String(res.headers['content-type'] ?? '').includes('html')) continue;
      pages++;
      const base = `http://${r.host}${r.target}`;
      for (const v of new LinkTokens(body.toString('utf8')).values) {
        links++;
        try {
          seen.add(new URL(v, base).href);
        } catch {
          // not a URL: the crawl reports it; the floor drops it
        }
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  await pool.close();
  return { requests: requests.length, pages, links };
}

/** Run the floor in a child process (cold) and report its whole-process CPU. */
export function floorInChild(port: number, requests: readonly FloorRequest[], concurrency: number): Promise<FloorResult> {
  const child = fork(fileURLToPath(import.meta.url), ['--floor-child'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    let got: FloorResult | undefined;
    child.on('message', (m) => (got = m as FloorResult));
    child.on('error', reject);
    child.on('exit', (code) => (got === undefined ? reject(new Error(`floor child exited ${code}`)) : resolve(got)));
    child.send({ port, requests, concurrency });
  });
}

if (process.argv.includes('--floor-child')) {
  process.once('message', (m: { port: number; requests: FloorRequest[]; concurrency: number }) => {
    void (async () => {
      // the whole process, start-up included, as for the crawl child
      const r = await floor(m.port, m.requests, m.concurrency);
      const used = process.cpuUsage();
      process.send!({ ...r, cpuSeconds: (used.user + used.system) / 1e6 }, () => process.exit(0));
    })();
  });
}
