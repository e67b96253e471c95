#!/usr/bin/env node
// Regenerates fixtures/mixpanel, fixtures/amplitude, fixtures/posthog, fixtures/segment and fixtures/ga4 (deterministic: the
// same files every run). Usage: node scripts/make-vendor-fixtures.mjs
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { amplitudeFiles } from './vendor-fixtures/amplitude.mjs';
import { ga4Fixtures } from './vendor-fixtures/ga4.mjs';
import { mixpanelFixtures } from './vendor-fixtures/mixpanel.mjs';
import { posthogFixtures } from './vendor-fixtures/posthog.mjs';
import { segmentFixtures } from './vendor-fixtures/segment.mjs';
import { makeZip } from './zip-writer.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

function write(path, data) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, data);
}

/** `.gz` names are gzipped (with a fixed header, so the bytes are the same every run). */
function writeAll(dir, files) {
  rmSync(dir, { recursive: true, force: true });
  for (const [name, text] of Object.entries(files)) {
    write(join(dir, name), name.endsWith('.gz') ? gzipSync(text, { level: 9 }) : text);
  }
}

writeAll(join(root, 'mixpanel'), mixpanelFixtures());
writeAll(join(root, 'posthog'), posthogFixtures());
writeAll(join(root, 'segment'), segmentFixtures());
writeAll(join(root, 'ga4'), ga4Fixtures());

// Amplitude: the export as downloaded (a zip of .json.gz files, stored), the same files unzipped,
// and two of them gunzipped and zipped again with deflate on a Mac (with its hidden extras).
const amplitude = join(root, 'amplitude');
rmSync(amplitude, { recursive: true, force: true });
const files = Object.entries(amplitudeFiles());
const hourly = files.map(([name, text]) => ({ name: `${name}.gz`, data: gzipSync(text, { level: 9 }) }));
write(join(amplitude, 'export-123456.zip'), makeZip(hourly));
for (const { name, data } of hourly) write(join(amplitude, 'unzipped', name), data);
const rezipped = files.slice(0, 2).map(([name, text]) => ({ name: name.split('/').pop(), data: Buffer.from(text), method: 'deflate' }));
const macExtras = [
  { name: '.DS_Store', data: Buffer.from([0, 0, 0, 1, 0x42, 0x75, 0x64, 0x31]) },
  { name: `__MACOSX/._${rezipped[0].name}`, data: Buffer.from([0, 5, 0x16, 7, 0, 2, 0, 0]) },
];
write(join(amplitude, 'rezipped-on-a-mac.zip'), makeZip([...rezipped, ...macExtras]));
