#!/usr/bin/env node
// When a process's resident memory grows and what kind it is, without a profiler: every
// INTERVAL ms, from /proc (Linux), its resident set (VmRSS) split into anonymous memory (heaps,
// malloc: SQLite's caches and sorts, buffers) and file-backed pages (the code of Node and its
// libraries, and any file mapped with mmap), plus the size of a file (a staging file's
// write-ahead log) if one is named. Prints one line every SUMMARY seconds (the highest of each
// over it) and, at the end, the peaks and when they came.
// Usage:
//   node bench/sample-memory.mjs [--interval-ms 250] [--every-s 5] [--size FILE] --pid PID
//   node bench/sample-memory.mjs [...] --match TEXT      the first process whose command line holds TEXT
//   node bench/sample-memory.mjs [...] -- node bin/migrate.js export-source ...   runs it
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const args = process.argv.slice(2);
const dash = args.indexOf('--');
const command = dash === -1 ? [] : args.slice(dash + 1);
const options = dash === -1 ? args : args.slice(0, dash);
const option = (name, fallback) => {
  const at = options.indexOf(name);
  return at === -1 ? fallback : options[at + 1];
};
const intervalMs = Number(option('--interval-ms', 250));
const everyMs = Number(option('--every-s', 5)) * 1000;
const sized = option('--size', undefined);
const match = option('--match', undefined);

/** kB fields of /proc/<pid>/status, in MB (10^6 bytes). */
function memory(pid) {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const field = (name) => {
    const m = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(text);
    return m ? (Number(m[1]) * 1024) / 1e6 : 0;
  };
  return { rss: field('VmRSS'), hwm: field('VmHWM'), anon: field('RssAnon'), file: field('RssFile'), shmem: field('RssShmem') };
}

function findByCommandLine(text) {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      // GNU time's own process holds the same command line; the node under it is the one sampled.
      if (cmdline.includes(text) && !cmdline.startsWith('/usr/bin/time') && !cmdline.includes('sample-memory')) return Number(entry);
    } catch {
      // Gone between the listing and the read.
    }
  }
  return undefined;
}

async function target() {
  if (command.length > 0) {
    const child = spawn(command[0], command.slice(1), { stdio: ['ignore', 'ignore', 'inherit'] });
    return child.pid;
  }
  if (option('--pid', undefined)) return Number(option('--pid', undefined));
  if (!match) {
    console.error('usage: node bench/sample-memory.mjs [--interval-ms N] [--every-s N] [--size FILE] (--pid PID | --match TEXT | -- command...)');
    process.exit(2);
  }
  for (;;) {
    const pid = findByCommandLine(match);
    if (pid !== undefined) return pid;
    await sleep(intervalMs);
  }
}

const pid = await target();
const started = Date.now();
const peak = { rss: 0, anon: 0, file: 0, shmem: 0, size: 0 };
const peakAt = { rss: 0, anon: 0, file: 0, shmem: 0, size: 0 };
let window = { rss: 0, anon: 0, file: 0, shmem: 0, size: 0 };
let windowStart = started;
let hwm = 0;
const seconds = (ms) => (ms / 1000).toFixed(1);
console.log(`pid ${pid}; MB = 10^6 bytes; each line the highest over ${everyMs / 1000} s`);
console.log('t (s)    rss    anon   file   shmem' + (sized ? '  file-size' : ''));
for (;;) {
  let m;
  try {
    m = memory(pid);
  } catch {
    break;
  }
  const size = sized && existsSync(sized) ? statSync(sized).size / 1e6 : 0;
  const now = Date.now();
  hwm = Math.max(hwm, m.hwm);
  for (const [k, v] of Object.entries({ ...m, size })) {
    if (!(k in peak)) continue;
    if (v > peak[k]) {
      peak[k] = v;
      peakAt[k] = now - started;
    }
    window[k] = Math.max(window[k], v);
  }
  if (now - windowStart >= everyMs) {
    const w = window;
    console.log(
      `${seconds(now - started).padStart(6)} ${w.rss.toFixed(0).padStart(6)} ${w.anon.toFixed(0).padStart(6)} ${w.file.toFixed(0).padStart(6)} ${w.shmem.toFixed(0).padStart(6)}${sized ? ` ${w.size.toFixed(0).padStart(10)}` : ''}`,
    );
    window = { rss: 0, anon: 0, file: 0, shmem: 0, size: 0 };
    windowStart = now;
  }
  await sleep(intervalMs);
}
const line = (k) => `${k} ${peak[k].toFixed(1)} MB at ${seconds(peakAt[k])} s`;
console.log(`ended after ${seconds(Date.now() - started)} s; peaks: ${['rss', 'anon', 'file', 'shmem'].map(line).join('; ')}; VmHWM ${hwm.toFixed(1)} MB${sized ? `; ${line('size')}` : ''}`);
