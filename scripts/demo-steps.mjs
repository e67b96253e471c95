// The demo's steps (scripts/demo.mjs), with how each `migrate` command runs left to the caller:
// demo.mjs starts each as a process, as a user would; the test runs them in its own process and
// starts only the sandbox, which must keep running beside them, as a process.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMixpanelDemo } from './mixpanel-engage-standin.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
export const cli = join(root, 'bin', 'migrate.js');

/** Starts `migrate sandbox --json` and resolves with its first line: url and project keys. */
function startSandbox(dir, env) {
  const child = spawn(process.execPath, [cli, 'sandbox', '--port', '0', '--db', join(dir, 'sandbox.db'), '--json'], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env } });
  return new Promise((resolve, reject) => {
    let out = '';
    child.once('error', reject);
    child.once('close', (code) => reject(new Error(`the sandbox exited early (${code})`)));
    child.stdout.setEncoding('utf8').on('data', (data) => {
      out += data;
      const line = out.split('\n')[0];
      if (out.includes('\n')) {
        child.stdout.removeAllListeners('data');
        child.stdout.resume();
        child.removeAllListeners('close');
        resolve({ child, info: JSON.parse(line) });
      }
    });
  });
}

function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('close', () => resolve());
    child.kill('SIGTERM');
  });
}

/** A Mixpanel project: a day of events, 2,500 user profiles (some with no events) and 3 companies. */
function mixpanelProject() {
  const time = Date.UTC(2025, 0, 15, 10);
  const events = ['u-1', 'u-2', 'u-3'].map((id, i) => ({ event: 'Signed Up', properties: { time: time + i * 1000, distinct_id: id, $insert_id: `demo-${i}`, company_id: `c-${i}` } }));
  const users = Array.from({ length: 2500 }, (_, i) => ({
    $distinct_id: `u-${i}`,
    $properties: { $email: `user${i}@example.com`, $name: `User ${i}`, plan: i % 3 === 0 ? 'pro' : 'free', $last_seen: '2025-01-20T08:00:00' },
  }));
  const companies = Array.from({ length: 3 }, (_, i) => ({ $distinct_id: `c-${i}`, $properties: { $name: `Company ${i}`, seats: 10 * (i + 1) } }));
  return { projectId: '3141592', username: 'demo.sa', secret: 'demo-mixpanel-secret', events, users, groups: { 1: companies } };
}

/** Events, user profiles and group profiles from the Mixpanel stand-in into the sandbox's test project (its own staging file). */
async function mixpanelPart({ dir, run, say }, entries) {
  const project = mixpanelProject();
  const mixpanel = await startMixpanelDemo(project);
  try {
    say(`\nA Mixpanel project on ${mixpanel.url} (a local stand-in of its export and Engage APIs).`);
    const mpConfig = join(dir, 'mixpanel.config.json');
    const source = { projectId: project.projectId, username: project.username, secretEnv: 'MIXPANEL_SECRET', apiHost: mixpanel.url, groupProfiles: { company_id: 1 } };
    writeFileSync(mpConfig, JSON.stringify({ projects: { test: entries.test }, sources: { mixpanel: source } }, null, 2));
    const env = { MIXPANEL_SECRET: project.secret };
    const mpStaging = ['--staging', join(dir, 'mixpanel.db'), '--config', mpConfig];
    await run(['export-source', '--from', 'mixpanel-api', '--people', '--start', '2025-01-15', '--end', '2025-01-15', '--group', 'company_id=company_id', ...mpStaging], env);
    await run(['import', '--project', 'test', ...mpStaging], env);
  } finally {
    await mixpanel.close();
  }
}

/**
 * Runs the demo in `dir`. `run(args, env)` runs `migrate <args>` (with `env` added to its
 * environment) and rejects unless it exits 0; `say` prints a line; `sandboxEnv` is added to the
 * sandbox process's environment. Resolves with the path of the verify report.
 */
export async function runDemo({ dir, run, say, keep = false, sandboxEnv = {} }) {
  const staging = join(dir, 'migration.db');
  const config = join(dir, 'migrate.config.json');
  const sandbox = await startSandbox(dir, sandboxEnv);
  try {
    const { url, projects } = sandbox.info;
    say(`Sandbox running on ${url} (a local PostHog-compatible server; its keys are its own).`);
    const personalApiKey = sandbox.info.personalKeys.find((k) => k.label === 'owner-all').key;
    const entries = Object.fromEntries(projects.map((p) => [p.role === 'production' ? 'prod' : 'test', { role: p.role, host: url, apiKey: p.apiKey, projectId: String(p.id), personalApiKey }]));
    writeFileSync(config, JSON.stringify({ projects: entries }, null, 2));
    const common = ['--staging', staging, '--config', config];
    const fixture = (name) => join(root, 'fixtures', name);
    await run(['doctor', '--project', 'test', ...common]);
    await run(['export-source', '--from', 'csv', fixture('sample-events.csv'), '--group', 'company=company', '--staging', staging]);
    await run(['identify-users', '--from', 'csv', fixture('users.csv'), '--set-once', 'first_seen', '--staging', staging]);
    await run(['identify-groups', '--from', 'csv', fixture('companies.csv'), '--group-type', 'company', '--staging', staging]);
    await run(['import', '--project', 'test', ...common]);
    await run(['import', '--project', 'prod', ...common]);
    await run(['status', '--staging', staging]);
    await run(['groups', 'list', '--group-type-index', '0', '--project', 'prod', '--config', config]);
    const report = join(keep ? dir : mkdtempSync(join(tmpdir(), 'migrate-report-')), 'verify-report.html');
    await run(['verify', '--project', 'prod', '--html', report, ...common]);
    await mixpanelPart({ dir, run, say }, entries);
    say('\nDemo complete: the sample events, people and companies reached the test project, then the production project, and verify found every one of them there;');
    say("a Mixpanel project's events, user profiles and group profiles reached the test project.");
    say(`Verify report (open it in a browser): ${report}`);
    return report;
  } finally {
    await stop(sandbox.child);
  }
}
