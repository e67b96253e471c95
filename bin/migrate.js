#!/usr/bin/env node
// The Node check comes first, before anything that an older Node cannot even load (the CLI uses
// APIs of Node 22.19+, and a missing one fails when the module is linked, as a stack trace): so
// this file imports only what every Node has, and the rest dynamically after the check.
import { readFileSync } from 'node:fs';

// The minimum lives in package.json's `engines` alone; `npm ci` refuses an older Node (.npmrc).
const engines = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).engines.node;
const [needMajor, needMinor] = engines
  .replace(/^>=\s*/, '')
  .split('.')
  .map(Number);
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < needMajor || (major === needMajor && minor < (needMinor ?? 0))) {
  process.stderr.write(
    `error: migrate needs Node.js ${needMajor}.${needMinor ?? 0} or newer; this is Node.js ${process.versions.node} (${process.execPath}). Install Node.js 24, or run it through Node 24 from the npm registry: npx -p node@24 -- migrate ...\n`,
  );
  process.exit(10);
}

// Node sizes the main thread's heap when it starts, so a missing flag means starting again: in
// this same process (same pid, signals and pipes), before anything ran. Where process.execve is
// missing (Windows), the CLI runs with Node's defaults. See src/util/main-thread-flags.ts.
const { fileURLToPath } = await import('node:url');
const { restartArgv } = await import('../dist/util/main-thread-flags.js');
const argv = restartArgv(process.execPath, process.execArgv, fileURLToPath(import.meta.url), process.argv.slice(2), process.env.NODE_OPTIONS);
if (argv !== undefined && typeof process.execve === 'function') process.execve(process.execPath, argv, process.env);
await import('../dist/main.js');
