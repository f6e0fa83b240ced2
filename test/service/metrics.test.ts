// GET /metrics parses as the Prometheus text format 0.0.4 and counts what happened: requests by
// route and status, the latency histogram (cumulative, +Inf = count), admit results by reason,
// keyed URLs by outcome, pruned URLs by reason, store counts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Counter } from 'prom-client';
import { ServiceMetrics } from '../../src/service/metrics.js';
import { get, parsePrometheus, postJson, sampleValue, startHarness, type Harness } from './support.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({}, { presets: ['tracking'] });
});
afterAll(async () => {
  await h.stop();
});

describe('GET /metrics', () => {
  it('parses, and counts requests, latency, admit results and the store', async () => {
    await postJson(`${h.url}/v1/admit`, ['https://m.example/a', 'https://m.example/a?utm_source=x', 'https://m.example/a', 'nope']);
    await postJson(`${h.url}/v1/admit`, ['https://m.example/a']);
    await get(`${h.url}/v1/key?url=${encodeURIComponent('https://m.example/b')}`);
    await get(`${h.url}/v1/key?url=${encodeURIComponent('http://[x')}`);
    await postJson(`${h.url}/v1/key`, ['https://m.example/c', 'nope', 'https://m.example/a', 'http://x:99999/']);
    await postJson(`${h.url}/v1/key`, Array.from({ length: 2100 }, (_, i) => (i % 3 === 0 ? 'nope' : `https://m.example/${i}`)));
    await get(`${h.url}/nowhere`);
    const a = await get(`${h.url}/metrics`);
    expect(a.status).toBe(200);
    const { samples, types } = parsePrometheus(a.text);

    expect(types.get('urldedup_http_requests_total')).toBe('counter');
    expect(types.get('urldedup_http_request_duration_seconds')).toBe('histogram');
    expect(sampleValue(samples, 'urldedup_http_requests_total', { route: '/v1/admit', method: 'POST', status: '200' })).toBe(2);
    expect(sampleValue(samples, 'urldedup_http_requests_total', { route: '/v1/key', method: 'GET', status: '200' })).toBe(1);
    expect(sampleValue(samples, 'urldedup_http_requests_total', { route: '/v1/key', method: 'GET', status: '400' })).toBe(1);
    expect(sampleValue(samples, 'urldedup_http_requests_total', { route: 'other', method: 'GET', status: '404' })).toBe(1);

    // histogram: cumulative buckets, +Inf equals _count
    const buckets = samples.filter((s) => s.name === 'urldedup_http_request_duration_seconds_bucket' && s.labels.route === '/v1/admit');
    expect(buckets.at(-1)!.labels.le).toBe('+Inf');
    for (let i = 1; i < buckets.length; i++) expect(buckets[i]!.value).toBeGreaterThanOrEqual(buckets[i - 1]!.value);
    expect(buckets.at(-1)!.value).toBe(sampleValue(samples, 'urldedup_http_request_duration_seconds_count', { route: '/v1/admit' }));
    expect(sampleValue(samples, 'urldedup_http_request_duration_seconds_sum', { route: '/v1/admit' })).toBeGreaterThan(0);

    expect(sampleValue(samples, 'urldedup_admit_results_total', { reason: 'new' })).toBe(1);
    expect(sampleValue(samples, 'urldedup_admit_results_total', { reason: 'preset:tracking' })).toBe(1);
    expect(sampleValue(samples, 'urldedup_admit_results_total', { reason: 'duplicate-in-batch' })).toBe(1);
    expect(sampleValue(samples, 'urldedup_admit_results_total', { reason: 'invalid:ERR_RELATIVE_URL' })).toBe(1);
    expect(sampleValue(samples, 'urldedup_admit_results_total', { reason: 'seen' })).toBe(1);
    // URLs keyed by GET and POST /v1/key, over several lookup chunks: 1 + 2 + 1400 with a key, 1 + 2 + 700 without
    expect(sampleValue(samples, 'urldedup_key_results_total', { outcome: 'ok' })).toBe(1403);
    expect(sampleValue(samples, 'urldedup_key_results_total', { outcome: 'invalid' })).toBe(703);

    const stats = await h.store.stats();
    expect(sampleValue(samples, 'urldedup_store_admitted')).toBe(stats.urls.admitted);
    expect(sampleValue(samples, 'urldedup_store_urls', { state: 'queued' })).toBe(stats.urls.queued);
    expect(sampleValue(samples, 'urldedup_store_pruned', { reason: 'preset:tracking' })).toBe(1);
    expect(sampleValue(samples, 'urldedup_store_frontier_size')).toBe(stats.frontier.size);
    expect(sampleValue(samples, 'urldedup_store_disk_bytes')).toBeGreaterThan(0);
  });
});

describe('the exposition (prom-client)', () => {
  it('escapes label values and help text, and writes the +Inf bucket', async () => {
    const m = new ServiceMetrics();
    m.admitted('a "quoted" \\ back\nslash');
    m.request('/v1/admit', 'POST', '200', 60);
    new Counter({ name: 'x_total', help: 'a \\ help\nline', registers: [m.registry] }).inc();
    const stats = { urls: { admitted: 0, queued: 0, fetched: 0, redirected: 0, pruned: 0, failed: 0 }, aliases: 0, loops: 0, temporaryRedirects: 0, rules: { candidate: 0, active: 0, withdrawn: 0 }, pruned: {}, frontier: { size: 0, inFlight: 0, hostCount: 0, hosts: {} }, front: { source: 'database' as const, keys: 0, aliasKeys: 0, bytes: 0 } };
    const text = await m.render({ store: stats, storeBytes: undefined, inFlight: 0, pendingUrls: 0, bufferedBytes: 0 });
    expect(text).toContain('# HELP x_total a \\\\ help\\nline');
    const { samples } = parsePrometheus(text);
    expect(sampleValue(samples, 'urldedup_admit_results_total')).toBe(1);
    expect(samples.find((x) => x.name === 'urldedup_admit_results_total')!.labels.reason).toBe('a "quoted" \\ back\nslash');
    expect(sampleValue(samples, 'urldedup_http_request_duration_seconds_bucket', { route: '/v1/admit', le: '10' })).toBe(0);
    expect(sampleValue(samples, 'urldedup_http_request_duration_seconds_bucket', { route: '/v1/admit', le: '+Inf' })).toBe(1);
    // the process and runtime families prom-client adds
    expect(sampleValue(samples, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(sampleValue(samples, 'process_start_time_seconds')).toBeGreaterThan(1_600_000_000);
  });
});
