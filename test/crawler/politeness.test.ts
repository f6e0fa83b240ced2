/** Politeness: the global and per-host concurrency limits and the delay between request starts. */
import { describe, expect, it } from 'vitest';
import { Politeness } from '../../src/crawler/policy/politeness.js';

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('Politeness', () => {
  it('never runs more than perHost tasks on a host, nor more than concurrency in all', async () => {
    const p = new Politeness({ concurrency: 3, perHost: 2 });
    const running = new Map<string, number>();
    let all = 0;
    let maxAll = 0;
    const maxHost = new Map<string, number>();
    const task = (host: string) => async () => {
      running.set(host, (running.get(host) ?? 0) + 1);
      all++;
      maxAll = Math.max(maxAll, all);
      maxHost.set(host, Math.max(maxHost.get(host) ?? 0, running.get(host)!));
      await sleep(10);
      running.set(host, running.get(host)! - 1);
      all--;
    };
    await Promise.all(['a', 'a', 'a', 'a', 'b', 'b', 'b', 'c', 'c', 'c'].map((h) => p.run(h, task(h))));
    expect(maxAll).toBe(3);
    expect(Math.max(...maxHost.values())).toBe(2);
  });

  it('spaces the starts on one host by the delay; a Crawl-delay raises it (capped)', async () => {
    const p = new Politeness({ concurrency: 4, perHost: 4, delayMs: 40, maxCrawlDelayMs: 80 });
    const starts: number[] = [];
    await Promise.all([1, 2, 3, 4].map(() => p.run('h', async () => void starts.push(Date.now()))));
    const gaps = starts.slice(1).map((t, i) => t - starts[i]!);
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(38);
    p.setCrawlDelay('h', 10); // 10 s asked, 80 ms honoured
    expect(p.delayOf('h')).toBe(80);
    p.setCrawlDelay('h', 0.01);
    expect(p.delayOf('h')).toBe(40); // never below delayMs
    const other: number[] = [];
    await Promise.all([1, 2].map(() => p.run('other', async () => void other.push(Date.now()))));
    expect(other[1]! - other[0]!).toBeGreaterThanOrEqual(38);
  });

  it('pace() takes the next start time for a further request inside a task', async () => {
    const p = new Politeness({ delayMs: 30 });
    const t: number[] = [];
    await p.run('h', async () => {
      t.push(Date.now());
      await p.pace('h');
      t.push(Date.now());
    });
    expect(t[1]! - t[0]!).toBeGreaterThanOrEqual(28);
  });

  it('rejects nonsense limits', () => {
    expect(() => new Politeness({ concurrency: 0 })).toThrow(TypeError);
    expect(() => new Politeness({ perHost: 1.5 })).toThrow(TypeError);
    expect(() => new Politeness({ delayMs: -1 })).toThrow(TypeError);
  });
});
