#!/usr/bin/env node
// Refresh the vendored conformance data in test/fixtures/conformance/ (see PROVENANCE.md there).
//
//   node scripts/refresh-conformance.mjs            list each file's source and what refreshing it means
//   node scripts/refresh-conformance.mjs --wpt      download web-platform-tests' url/resources/urltestdata.json
//                                                   (kept byte for byte) and record where and when
//
// Only the WPT file is taken whole from upstream. The other suites are cases read out of other
// projects' test files at a recorded commit (their `provenance` object names repository, path and
// commit): refreshing one means reading that file again at a newer commit and updating the cases
// and the provenance together. After any refresh, run `npm test`: the conformance tests assert the
// pass counts, so a changed suite shows as changed counts to look at, never as a silent pass.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const DIR = fileURLToPath(new URL('../test/fixtures/conformance/', import.meta.url));
const WPT_URL = 'https://raw.githubusercontent.com/web-platform-tests/wpt/master/url/resources/urltestdata.json';

function sha256(bytes) {
  return createHash('sha256').update(bytes).digest('hex');
}

async function refreshWpt() {
  const res = await fetch(WPT_URL);
  if (!res.ok) throw new Error(`${WPT_URL}: HTTP ${res.status}`);
  const text = await res.text();
  const cases = JSON.parse(text).filter((c) => typeof c === 'object');
  const path = join(DIR, 'wpt-urltestdata.json');
  const before = sha256(readFileSync(path));
  writeFileSync(path, text);
  const provPath = join(DIR, 'wpt-urltestdata.provenance.json');
  const prov = JSON.parse(readFileSync(provPath, 'utf8'));
  prov.provenance = { ...prov.provenance, commit: `web-platform-tests/wpt master as of ${new Date().toISOString().slice(0, 10)} (${WPT_URL})`, sha256: sha256(text) };
  writeFileSync(provPath, `${JSON.stringify(prov, null, 2)}\n`);
  console.log(`wpt-urltestdata.json: ${cases.length} tests, ${before === sha256(text) ? 'unchanged' : 'changed: update the asserted counts in test/normalize/wpt-url.test.ts and docs/conformance.md'}`);
}

function list() {
  for (const name of readdirSync(DIR).filter((n) => n.endsWith('.json')).sort()) {
    const data = JSON.parse(readFileSync(join(DIR, name), 'utf8'));
    const p = Array.isArray(data) ? undefined : data.provenance;
    if (p === undefined) {
      console.log(`${name}: taken whole from upstream (see its .provenance.json); refresh with --wpt`);
      continue;
    }
    const where = [p.repository, p.path, p.commit].filter(Boolean).join(' ');
    console.log(`${name}: ${where || JSON.stringify(p).slice(0, 160)}`);
  }
}

if (process.argv.includes('--wpt')) await refreshWpt();
else list();
