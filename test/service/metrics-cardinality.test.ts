// Metrics label cardinality: a crawl of many hosts must not grow the number of series. Before
// prom-client and ReasonLabels, `urldedup_admit_results_total{reason}` and
// `urldedup_store_pruned{reason}` had a label value per learned rule, and a rule id names its host
// (`rule:h7.example/https`): every host crawled added series. Now rules count under their kind
// (`rule:https`) unless `metricsRuleIds` opts in to a capped number of rule ids.
import { afterEach, describe, expect, it } from 'vitest';
import { get, parsePrometheus, postJson, startHarness, type Harness, type Sample } from './support.js';

let h: Harness | undefined;
afterEach(async () => {
  await h?.stop();
  h = undefined;
});

/**
 * Per host: three queued http URLs, an https one, then 3 permanent http→https redirects (the
 * `https` rule becomes active, checks two of the queued http URLs and prunes the third), then the
 * http form of the seen https URL.
 */
async function crawlHosts(url: string, from: number, to: number): Promise<void> {
  const hosts = Array.from({ length: to - from }, (_, i) => `h${from + i}.example`);
  expect((await postJson(`${url}/v1/admit`, hosts.flatMap((host) => [`http://${host}/w`, `http://${host}/w2`, `http://${host}/w3`, `https://${host}/z`]))).status).toBe(200);
  const redirects = hosts.flatMap((host) => [0, 1, 2].map((i) => ({ from: `http://${host}/p${i}`, to: `https://${host}/p${i}`, status: 301 })));
  expect((await postJson(`${url}/v1/evidence`, { redirects })).status).toBe(200);
  const again = await postJson(`${url}/v1/admit`, hosts.map((host) => `http://${host}/z`));
  expect((again.body as { results: { reason: string }[] }).results.every((r) => r.reason.startsWith('rule:'))).toBe(true);
}

async function scrape(url: string): Promise<Sample[]> {
  const a = await get(`${url}/metrics`);
  expect(a.status).toBe(200);
  return parsePrometheus(a.text).samples;
}

const ours = (samples: Sample[]): Sample[] => samples.filter((s) => s.name.startsWith('urldedup_'));

describe('series do not grow with the hosts crawled', () => {
  it('3 hosts and then 200 more give the same series; no label names a host', async () => {
    h = await startHarness();
    await crawlHosts(h.url, 0, 3);
    await scrape(h.url); // so the /metrics route's own series exist in both
    const before = ours(await scrape(h.url));
    await crawlHosts(h.url, 3, 203);
    const all = await scrape(h.url);
    const after = ours(all);
    const names = (xs: Sample[]): string[] => xs.map((s) => `${s.name}${JSON.stringify(s.labels)}`).sort();
    expect(names(after)).toEqual(names(before));
    expect(after.find((s) => s.name === 'urldedup_admit_results_total' && s.labels.reason === 'rule:https')?.value).toBe(203);
    expect(after.find((s) => s.name === 'urldedup_store_pruned' && s.labels.reason === 'rule:https')?.value).toBeGreaterThanOrEqual(203);
    for (const s of all) for (const v of Object.values(s.labels)) expect(v, s.name).not.toContain('.example');
  });

  it('metricsRuleIds opts in to rule ids as labels, capped', async () => {
    h = await startHarness({ metricsRuleIds: 2 });
    await crawlHosts(h.url, 0, 20);
    const reasons = ours(await scrape(h.url))
      .filter((s) => s.name === 'urldedup_admit_results_total' && s.labels.reason!.startsWith('rule:'))
      .map((s) => [s.labels.reason, s.value]);
    expect(reasons).toHaveLength(3);
    expect(reasons.filter(([r]) => (r as string).includes('.example/https'))).toHaveLength(2);
    expect(reasons.find(([r]) => r === 'rule:https')?.[1]).toBe(18);
  });
});
