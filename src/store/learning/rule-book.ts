/**
 * The rule book: the host rules as written, indexed for the transform and the learner
 * (`LiveRules`), with what the learner and the give-back remember beside them in this process:
 * the URLs each rule rewrote and where, the scopes whose documents were read for images, the
 * presets a host's redirects suspended, and the caches of not-found answers and path documents.
 * It follows each written batch (`wrote`); the database stays the truth.
 */
import { compareForApply, isMirrorRuleId, parseRuleId, type ActiveRule, type RuleRecord, type RuleSpec } from '../rules.js';
import type { Kv, KvOp } from '../backends/kv.js';
import { NotFoundCache } from './not-found.js';
import { PathDocuments } from './path-documents.js';
import { RewriteSamples } from './rewrite-samples.js';
import { PresetSuspensions } from './preset-suspensions.js';
import { bareParameterPath } from './parameter-difference.js';

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A rule as the frontier's order reads it (candidate-order.ts): what it does, the paths of its
 * evidence, and for an active rule where it holds (a URL it would rewrite outside its scopes is
 * evidence for it to grow, as a candidate's is).
 */
export interface RuleReach {
  readonly spec: RuleSpec;
  /** The paths (segment parameters left out) of its supporting observations. */
  readonly paths: ReadonlySet<string>;
  /** The rule as the transform applies it, when active. */
  readonly active?: ActiveRule;
}

/**
 * The candidate and active host rules as written, indexed for the transform (active rules per
 * host, in the order they apply) and the learner (live rule ids per host, and withdrawn ids).
 */
export class LiveRules {
  private readonly live = new Map<string, RuleRecord>();
  private readonly liveByHost = new Map<string, Set<string>>();
  private readonly withdrawnIds = new Set<string>();
  private readonly activeByHost = new Map<string, ActiveRule[]>();
  /** Each host's live rules as the frontier's order reads them, by id. */
  private readonly reachByHost = new Map<string, Map<string, RuleReach>>();
  /** Each host's mirrors with a live `mirror:` rule onto it: target host → the rules' hosts. */
  private readonly mirrorsByTarget = new Map<string, Set<string>>();
  /** The active rules of `host`, in apply order (rules.ts `applyRules` takes this). */
  readonly activeOf = (host: string): readonly ActiveRule[] | undefined => this.activeByHost.get(host);

  /** True when some host has a live rule. */
  get anyLive(): boolean {
    return this.reachByHost.size > 0;
  }

  /** What the live rules of `host` would do, and where their evidence lies (candidate-order.ts). */
  reachOf(host: string): Iterable<RuleReach> | undefined {
    return this.reachByHost.get(host)?.values();
  }

  /** A rule that is not withdrawn, by id. */
  get(id: string): RuleRecord | undefined {
    return this.live.get(id);
  }

  /** The ids of `host`'s live (candidate or active) rules. */
  idsOf(host: string): Iterable<string> {
    return this.liveByHost.get(host) ?? [];
  }

  /** The hosts with a live `mirror:` rule onto `host`. */
  mirrorsOnto(host: string): Iterable<string> {
    return this.mirrorsByTarget.get(host) ?? [];
  }

  /** True when `host` has a live `mirror:` rule onto another (it is a copy). */
  readonly isMirror = (host: string): boolean => {
    for (const id of this.liveByHost.get(host) ?? []) if (isMirrorRuleId(id)) return true;
    return false;
  };

  /** True when `id` was withdrawn (its record is only in the database). */
  isWithdrawn(id: string): boolean {
    return this.withdrawnIds.has(id);
  }

  /** True when some host has an active rule. */
  get anyActive(): boolean {
    return this.activeByHost.size > 0;
  }

  hasActive(host: string): boolean {
    return this.activeByHost.has(host);
  }

  /** Take a rule as written (at open, and after each commit). */
  remember(rule: RuleRecord): void {
    const had = this.live.get(rule.id);
    if (rule.state === 'withdrawn') {
      this.live.delete(rule.id);
      this.liveByHost.get(rule.host)?.delete(rule.id);
      this.withdrawnIds.add(rule.id);
    } else {
      this.live.set(rule.id, rule);
      let ids = this.liveByHost.get(rule.host);
      if (ids === undefined) this.liveByHost.set(rule.host, (ids = new Set()));
      ids.add(rule.id);
    }
    if (had?.state === 'active' || rule.state === 'active') this.rebuildActive(rule.host);
    this.rememberReach(rule);
    if (rule.spec.startsWith('mirror:')) {
      const target = rule.spec.slice('mirror:'.length);
      let hosts = this.mirrorsByTarget.get(target);
      if (rule.state !== 'withdrawn') {
        if (hosts === undefined) this.mirrorsByTarget.set(target, (hosts = new Set()));
        hosts.add(rule.host);
      } else if (hosts?.delete(rule.host) === true && hosts.size === 0) this.mirrorsByTarget.delete(target);
    }
  }

  /** The rule's entry in its host's reach (after `rebuildActive`, whose entry it keeps). */
  private rememberReach(rule: RuleRecord): void {
    let reach = this.reachByHost.get(rule.host);
    const parsed = rule.state === 'withdrawn' ? undefined : parseRuleId(rule.id);
    if (parsed === undefined) {
      reach?.delete(rule.id);
      if (reach?.size === 0) this.reachByHost.delete(rule.host);
      return;
    }
    if (reach === undefined) this.reachByHost.set(rule.host, (reach = new Map()));
    const paths = new Set((rule.support ?? []).map((x) => bareParameterPath(x.p)));
    const active = rule.state === 'active' ? this.activeByHost.get(rule.host)?.find((x) => x.id === rule.id) : undefined;
    reach.set(rule.id, active === undefined ? { spec: parsed.spec, paths } : { spec: parsed.spec, paths, active });
  }

  private rebuildActive(host: string): void {
    const active: ActiveRule[] = [];
    for (const id of this.liveByHost.get(host) ?? []) {
      const r = this.live.get(id);
      if (r?.state !== 'active') continue;
      const parsed = parseRuleId(id);
      if (parsed !== undefined) active.push({ id, spec: parsed.spec, scopes: r.scopes ?? [] });
    }
    active.sort((a, b) => compareForApply(a.spec, b.spec) || compare(a.id, b.id));
    if (active.length === 0) this.activeByHost.delete(host);
    else this.activeByHost.set(host, active);
  }
}

/** The live rules and what the learner remembers beside them. */
export class RuleBook extends LiveRules {
  /** URLs each rule rewrote in this process, and where: which of them are fetched as themselves too. */
  readonly samples = new RewriteSamples();
  /** Scopes per rule (their node, flat, query and values) whose documents were read for images (give-back.ts `pruneImages`). */
  readonly imageScans = new Map<string, Set<string>>();
  /** Presets off where a host's redirects contradict them (preset-suspensions.ts; evidence.ts). */
  readonly suspendedPresets = new PresetSuspensions();
  /** Each host's not-found entries as read (not-found.ts), until a written batch changes them. */
  readonly notFound = new NotFoundCache();
  /** The documents fetched under each path of the hosts read (path-documents.ts). */
  readonly pathDocuments: PathDocuments;

  constructor(kv: Kv) {
    super();
    this.pathDocuments = new PathDocuments(kv);
  }

  /** A batch is written: its rules, and the entries the caches read. */
  wrote(rules: Iterable<RuleRecord>, ops: readonly KvOp[]): void {
    for (const rule of rules) {
      this.remember(rule);
      this.samples.evidenceChanged(`rule:${rule.id}`);
    }
    this.notFound.written(ops);
    this.pathDocuments.written(ops);
  }

  /** The database was rebuilt (rebuild.ts): the caches read it again. */
  forget(): void {
    this.notFound.clear();
    this.pathDocuments.clear();
  }
}
