#!/usr/bin/env node
// The main job in one command (`npm run demo`): starts the sandbox on a free port, checks it with
// migrate doctor, stages the bundled sample, imports it into the sandbox's test project, then its
// production project, prints the status, then checks with `migrate verify` that everything landed
// in the production project and writes the HTML report. Then a Mixpanel project (a local stand-in
// of its export and Engage APIs): its events, user profiles and group profiles, through
// `export-source --from mixpanel-api --people`. Everything happens in a temp directory,
// removed at the end (--keep keeps it; the report is then kept too). The steps are in
// demo-steps.mjs; here each `migrate` command runs as a process of its own, as a user runs it.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, runDemo } from './demo-steps.mjs';

const keep = process.argv.includes('--keep');
const dir = mkdtempSync(join(tmpdir(), 'migrate-demo-'));

function run(args, env = {}) {
  console.log(`\n$ migrate ${args.join(' ')}`);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { stdio: 'inherit', cwd: dir, env: { ...process.env, ...env } });
    child.once('error', reject);
    child.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`migrate ${args[0]} exited with ${code}`))));
  });
}

try {
  await runDemo({ dir, run, say: (line) => console.log(line), keep });
} catch (error) {
  console.error(`demo failed: ${error.message}`);
  process.exitCode = 1;
} finally {
  if (keep) console.log(`Files kept in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
}
