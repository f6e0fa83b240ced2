import { describe, expect, it } from 'vitest';
import { parseUri } from '../../src/normalize/index.js';
import {
  bareParameterPath,
  parameterDifference,
  pathParameterNames,
  removePathParameters,
  parameterValues,
  removeQueryFields,
  withoutAddedParameters,
} from '../../src/store/learning/parameter-difference.js';

const diff = (a: string, b: string) => parameterDifference(parseUri(a), parseUri(b));

describe('parameter difference', () => {
  it('finds a group of query fields that travel together', () => {
    expect(diff('http://e.com/a?x=1&utm_source=s&utm_medium=m', 'http://e.com/a?x=1')).toEqual({ place: 'query', names: ['utm_medium', 'utm_source'] });
    expect(diff('http://e.com/a?k=v', 'http://e.com/a')).toEqual({ place: 'query', names: ['k'] });
  });

  it('is no difference when values differ, fields move, or more than parameters change', () => {
    expect(diff('http://e.com/a?sid=1', 'http://e.com/a?sid=2')).toBeUndefined();
    expect(diff('http://e.com/a?b=2&a=1', 'http://e.com/a?a=1')).toEqual({ place: 'query', names: ['b'] });
    expect(diff('http://e.com/a?a=1&b=2', 'http://e.com/a?b=2&a=1')).toBeUndefined();
    expect(diff('http://e.com/a?a=1&t=1', 'http://e.com/b?a=1')).toBeUndefined();
    expect(diff('https://e.com/a?t=1', 'http://e.com/a')).toBeUndefined();
    expect(diff('http://e.com/a?t=1', 'http://www.e.com/a')).toBeUndefined();
    expect(diff('http://e.com/a', 'http://e.com/a?t=1')).toBeUndefined();
    expect(diff('http://e.com/a?x=1&t=1', 'http://e.com/a?x=2')).toBeUndefined();
  });

  it('an empty query is a query: /a? is not /a with parameters removed', () => {
    expect(diff('http://e.com/a?', 'http://e.com/a')).toBeUndefined();
    expect(removeQueryFields('t=1', new Set(['t']))).toBeUndefined();
    expect(removeQueryFields('', new Set(['t']))).toBe('');
  });

  it('reads an ASP.NET cookieless segment as a segment parameter named by its tags', () => {
    const id = 'dpk0ejjvurtdzgpa354hckgw';
    const seg = `/(S(${id}))`;
    expect(diff(`http://e.com${seg}/docs/a.html`, 'http://e.com/docs/a.html')).toEqual({ place: 'path', names: ['(S)'] });
    expect(pathParameterNames(`${seg}/docs/a.html;jsessionid=1`)).toEqual(['(S)', 'jsessionid']);
    expect(removePathParameters(`${seg}/docs/a.html`, new Set(['(S)']))).toBe('/docs/a.html');
    expect(removePathParameters(`${seg}/`, new Set(['(S)']))).toBe('/');
    expect(bareParameterPath(`${seg}/docs/a.html;v=2`)).toBe('/docs/a.html');
    expect(parameterValues('path', parseUri(`http://e.com${seg}/a`), new Set(['(S)']))).toBe(id);
    // every tag of a 2.0 segment names it; the 1.x form has none
    expect(pathParameterNames(`/(A(${id}x)S(${id}))/a`)).toEqual(['(AS)']);
    expect(pathParameterNames(`/(${id})/a`)).toEqual(['()']);
    // a redirect that adds one sends its source to the source itself (its own form)
    expect(withoutAddedParameters(parseUri(`http://e.com${seg}/a`), parseUri('http://e.com/a'))?.path).toBe('/a');
    // parentheses that are no session segment are path data
    expect(pathParameterNames('/wiki/Foo_(bar)')).toEqual([]);
    expect(bareParameterPath('/(S(short))/a')).toBe('/(S(short))/a');
  });

  it('finds segment parameters (RFC 3986 §3.3)', () => {
    expect(diff('http://e.com/a;jsessionid=ABC/b', 'http://e.com/a/b')).toEqual({ place: 'path', names: ['jsessionid'] });
    expect(diff('http://e.com/a;v=1', 'http://e.com/a;v=2')).toBeUndefined();
    expect(pathParameterNames('/a;x=1;y/b;x=2')).toEqual(['x', 'y']);
    expect(removePathParameters('/a;x=1;y/b;x=2', new Set(['x']))).toBe('/a;y/b');
    expect(bareParameterPath('/a;x=1;y/b;x=2')).toBe('/a/b');
  });
});
