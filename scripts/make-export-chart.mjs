#!/usr/bin/env node
// Regenerates docs/export-chart.png, the picture of an exported chart in docs/management.md:
// starts the sandbox on loopback, loads the bundled sample events straight into its store, and
// exports the built-in "Events per day" insight as image/png through the management client.
// Usage: npm run build && node scripts/make-export-chart.mjs
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { createHttpClient } from '../dist/http/http-client.js';
import { managementApi } from '../dist/management/management-api.js';
import { createManagementClient } from '../dist/management/management-client.js';
import { downloadWhenReady } from '../dist/management/export-wait.js';
import { systemClock } from '../dist/util/clock.js';
import { sandboxPersonalKey } from '../dist/sandbox/api/management-seed.js';
import { SANDBOX_ORGANIZATION_ID } from '../dist/sandbox/sandbox-seed-ids.js';
import { startSandbox } from '../dist/sandbox/sandbox-server.js';

const sandbox = await startSandbox({ port: 0 });
const db = sandbox.store.db;
db.prepare(`INSERT OR IGNORE INTO projects (id, name, api_token, organization_id, created_at) VALUES (1, 'Sandbox test project', 'phc_chartScriptToken01', ?, ?)`).run(
  SANDBOX_ORGANIZATION_ID,
  new Date().toISOString(),
);

const rows = parse(readFileSync(new URL('../fixtures/sample-events.csv', import.meta.url)), { columns: true });
const insert = db.prepare(
  `INSERT INTO events (team_id, uuid, event, distinct_id, timestamp, properties, historical_migration, endpoint, received_at)
   VALUES (1, ?, ?, ?, ?, '{}', 1, '/batch/', ?)`,
);
db.transaction(() => rows.forEach((row, i) => insert.run(`sample-${i}`, row.event, row.distinct_id, row.timestamp, row.timestamp)))();

const http = createHttpClient();
const target = { name: 'test', apiHost: sandbox.url, projectId: '1', personalApiKey: sandboxPersonalKey(sandbox.store, 'owner-all'), ingestionHost: sandbox.url };
const api = managementApi(createManagementClient({ target, http }));
const answer = await api.createExport({ insight: 1, export_format: 'image/png' });
if (answer.type !== 'created') throw new Error(`no answer from the sandbox (${answer.type})`);
const created = answer.export;
const wait = { pollIntervalMs: 20, timeoutMs: 10_000, clock: systemClock };
const content = await downloadWhenReady(api, created.id, wait);
mkdirSync(new URL('../docs/', import.meta.url), { recursive: true });
writeFileSync(new URL('../docs/export-chart.png', import.meta.url), content.bytes);
console.log(`docs/export-chart.png: ${content.bytes.length} bytes from ${rows.length} sample events (${created.filename})`);
await http.close();
await sandbox.close();
