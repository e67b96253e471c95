#!/usr/bin/env node
// Node sizes the main thread's heap when it starts, so a missing flag means starting again: in
// this same process (same pid, signals and pipes), before anything ran. Where process.execve is
// missing (Windows), the CLI runs with Node's defaults. See src/util/main-thread-flags.ts.
import { fileURLToPath } from 'node:url';
import { restartArgv } from '../dist/util/main-thread-flags.js';

const argv = restartArgv(process.execPath, process.execArgv, fileURLToPath(import.meta.url), process.argv.slice(2), process.env.NODE_OPTIONS);
if (argv !== undefined && typeof process.execve === 'function') process.execve(process.execPath, argv, process.env);
await import('../dist/main.js');
