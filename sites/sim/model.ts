/**
 * The simulator's model: a request, the server's answer, and a behaviour (one thing real servers
 * do, written from that server's documentation) as a layer of the server's routing.
 *
 * A site is a stack of behaviours over a base of documents from a real documentation tree.
 * Each behaviour sees a request on its way in (and may answer it, redirect it, or change it
 * before passing it on) and the answer on its way out (and may change the body: a token, an echo
 * of the request). The ground truth is the same stack run without a network: what document a URL
 * names is what the server answers for it.
 */
import type { Names, Rng } from './random.js';

export interface SimRequest {
  /** Host name as sent, lower case, without the port. */
  readonly host: string;
  /** The path as sent (percent-encoding as sent). */
  readonly path: string;
  /** The query without `?`; undefined when the target has no `?`. */
  readonly query: string | undefined;
  /** A request from the network (the ground truth's are not): a behaviour of load answers these alone. */
  readonly live?: true;
}

/** Why an answer is no document. */
export type NotADocument = 'not-found' | 'soft-404' | 'shell' | 'login' | 'asset' | 'redirect-loop' | 'off-site' | 'error';

export type Answer =
  | {
      readonly kind: 'document';
      /** The document's identity: two URLs name the same document when their answers share it. */
      readonly id: string;
      readonly body: () => string;
      readonly type?: string;
      readonly headers?: Readonly<Record<string, string>>;
    }
  | {
      readonly kind: 'redirect';
      readonly status: 301 | 302 | 303 | 307 | 308;
      readonly location: string;
      /**
       * A redirect a static host cannot send: served as 200 with this HTML page, which names
       * `location` (as it is then) in `<meta http-equiv=refresh>` (a generated stub,
       * jekyll-redirect-from). The truth follows it as it follows a redirect: the page is no
       * document of its own.
       */
      readonly stub?: (location: string, requestPath: string) => string;
    }
  | {
      readonly kind: 'none';
      readonly status: number;
      readonly why: NotADocument;
      /** The resource behind it, for the floor: one dead URL under two names is one fetch a crawler cannot skip. */
      readonly id: string;
      readonly body: () => string;
      readonly type?: string;
    };

export type Next = (req: SimRequest) => Answer;

/** A document of the site. */
export interface SimDoc {
  readonly id: string;
  host: string;
  /** Its canonical path (`/a/b.html`, `/a/`). */
  path: string;
  /** Its canonical query, when it has one (a listing page). */
  query?: string;
  readonly title: string;
  readonly text: string;
  /** Documents it links to (ids). */
  readonly links: string[];
  /** Other hrefs it carries (dead links, traps, forms), as written. */
  readonly hrefs: string[];
  /** `trap`: a page of an infinite space (a calendar), not counted in recall. */
  readonly kind: 'page' | 'section' | 'home' | 'generated' | 'trap';
  /** The section (directory) it lies in, with slashes (`/guide/`). */
  section: string;
  /** Extra markup in `<head>`. */
  head?: string;
}

/** A link of one document to another, as a behaviour may rewrite it. */
export interface LinkContext {
  readonly from: SimDoc;
  readonly to: SimDoc;
  /** The target's canonical URL (absolute). */
  readonly url: string;
  /** Per-link random stream (the same for one page and link in every run of a seed). */
  readonly rng: Rng;
}

/** What a behaviour may read and change while the site is built. */
export interface SiteBuilder {
  readonly rng: Rng;
  readonly names: Names;
  /** The main host (`<word>.localhost`). */
  readonly host: string;
  /** Hosts that belong to the site (others are off-site). */
  readonly hosts: Set<string>;
  readonly docs: Map<string, SimDoc>;
  /** Sections (directories holding documents), `/` included. */
  sections(): string[];
  addDoc(doc: Omit<SimDoc, 'links' | 'hrefs' | 'section'> & { links?: string[]; hrefs?: string[] }): SimDoc;
  /** Lines of a host's robots.txt (after `User-agent: *`). */
  robots(host: string, line: string): void;
  /** The absolute URL of a document (port included), valid once the server listens. */
  urlOf(doc: SimDoc): string;
  /** `http://host:port` of a host. */
  origin(host: string): string;
}

/** One behaviour of one site. */
export interface Behaviour {
  /** A short name (`slash-dir-redirect`): the shrinker and the tables print it. */
  readonly name: string;
  /** Which layer of the server it sits in: smaller is nearer the client. */
  readonly order: number;
  /** Build time: change canonical paths, add documents, hosts and robots.txt lines. */
  setup?(b: SiteBuilder): void;
  /** Serve time: a layer of the routing. */
  handle?(req: SimRequest, next: Next, b: SiteBuilder): Answer;
  /** Build time, per link: another name of the target this server answers (validated against the truth). */
  alias?(l: LinkContext, b: SiteBuilder): string | undefined;
  /** Build time, per link to a document on the same host: how pages write it (`href`, the root-relative path and query, unless a behaviour says otherwise). */
  write?(l: LinkContext, href: string): string;
}

/** A behaviour as the library holds it: written from a server's documentation. */
export interface BehaviourKind {
  readonly name: string;
  /** The server and documentation it is written from. */
  readonly source: string;
  /** Behaviours of one group exclude each other (one trailing-slash policy per site). */
  readonly group?: string;
  make(b: SiteBuilder): Behaviour;
}
