/**
 * The CLI's long-running commands ask V8 for a fixed old-generation growth (src/cli/heap-growth.ts),
 * unless the process was started with its own.
 */
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { HEAP_GROWING_PERCENT, heapGrowthFlag } from '../../src/cli/heap-growth.js';

describe('heap growth of the long-running commands', () => {
  it('asks for the CLI growth when the process set none', () => {
    expect(heapGrowthFlag([])).toBe(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    expect(heapGrowthFlag(['--enable-source-maps', '--max-old-space-size=512'])).toBe(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  });

  it("keeps the process's own flag, in either spelling", () => {
    expect(heapGrowthFlag(['--heap-growing-percent=80'])).toBeUndefined();
    expect(heapGrowthFlag(['--heap_growing_percent=80'])).toBeUndefined();
  });

  it('is a flag this Node accepts, and keeps the heap near what survives', () => {
    // objects that outlive a few scavenges and then die (as a write batch's strings do): V8's own
    // sizing lets the old generation grow far past the ones alive at any time; the fixed growth
    // collects them sooner
    const script = `
      const v8 = require('node:v8');
      if (process.argv[1] === 'on') v8.setFlagsFromString(${JSON.stringify(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`)});
      const ring = new Array(200000);
      let peak = 0;
      for (let i = 0; i < 3000000; i++) {
        ring[i % ring.length] = { a: 'y'.repeat(40) + i, b: [i] };
        if (i % 1000 === 0) peak = Math.max(peak, process.memoryUsage().heapTotal);
      }
      process.stdout.write(String(peak));
    `;
    const peak = (mode: string): number => {
      const r = spawnSync(process.execPath, ['-e', script, mode], { encoding: 'utf8', timeout: 60_000 });
      expect(r.status).toBe(0);
      return Number(r.stdout);
    };
    const on = peak('on');
    const off = peak('off');
    expect(on).toBeGreaterThan(0);
    expect(on).toBeLessThan(off * 0.75);
  });
});
