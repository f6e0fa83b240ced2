/**
 * A page's shape, words and word sketch (src/crawler/page-shape.ts): what the learner uses to tell
 * a not-found page that echoes the request, what new text a page brings to the trap rule, and a
 * large difference between pages that carry a per-response token.
 */
import { describe, expect, it } from 'vitest';
import { pageShape, textWords, wordSketch } from '../../src/crawler/page-shape.js';
import { sketchSimilarity } from '../../src/store/learning/stability.js';

describe('page shape', () => {
  it('a not-found page that echoes the path and a request id has one shape for every URL', () => {
    const page = (path: string, id: string): string => `Nothing found for ${path}. Sorry! Request ${id} at 12:04:33.`;
    const probe = pageShape(page('/docs/urldedup-not-found-3c4916b1d0959cfd', '8812'), 'http://h.example/docs/urldedup-not-found-3c4916b1d0959cfd');
    expect(pageShape(page('/docs/a-post', '9917'), 'http://h.example/docs/a-post')).toBe(probe);
    expect(pageShape(page('/docs/a post', '1'), 'http://h.example/docs/a-post')).toBe(probe); // a slug printed with spaces
  });

  it('pages that differ in more than the echo have different shapes', () => {
    const a = pageShape('The quick brown fox jumps', 'http://h.example/a');
    expect(pageShape('The slow brown fox sleeps', 'http://h.example/b')).not.toBe(a);
  });

  it('words: letters only, lower-cased, three or more, each once', () => {
    expect(textWords('Events: November 2026, NOVEMBER; a to of 42x item-list')).toEqual(['events', 'november', 'item', 'list']);
  });

  it('word sketches estimate how alike two pages are', () => {
    const words = Array.from({ length: 200 }, (_, i) => `w${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}x`);
    const same = wordSketch(words);
    expect(sketchSimilarity(same, wordSketch([...words, 'fbd']))).toBeGreaterThanOrEqual(0.75);
    expect(sketchSimilarity(same, wordSketch(words.map((w) => `${w}q`)))).toBeLessThan(0.5);
    expect(sketchSimilarity(undefined, same)).toBe(1);
    expect(wordSketch([])).toBe('');
  });
});
