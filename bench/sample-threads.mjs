#!/usr/bin/env node
// Where a long run's wall time goes, thread by thread, without a profiler: every INTERVAL
// seconds, from /proc (Linux), each busy thread's user and system CPU over the interval, its
// time runnable but waiting for a core (schedstat: the machine's other work), the share of
// 100 ms samples it was in uninterruptible sleep (D: waiting on the disk), the process's bytes
// read and written, and the size of a file (the staging file's write-ahead log). What is left
// of a thread's wall time is sleep: waiting on another thread or on a lock.
// Usage: node bench/sample-threads.mjs <pid> [interval-seconds=10] [file-to-size]
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';

const [pidArg, intervalArg, sized] = process.argv.slice(2);
const pid = Number(pidArg);
if (!Number.isInteger(pid) || pid <= 0) {
  console.error('usage: node bench/sample-threads.mjs <pid> [interval-seconds] [file-to-size]');
  process.exit(2);
}
const intervalMs = Number(intervalArg ?? 10) * 1000;
/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
const HZ = 100;

/** Fields of a /proc stat line after the command name (which may hold spaces). */
function statFields(path) {
  const text = readFileSync(path, 'utf8');
  const close = text.lastIndexOf(')');
  return { name: text.slice(text.indexOf('(') + 1, close), fields: text.slice(close + 2).split(' ') };
}

function sample() {
  const threads = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const { name, fields } = statFields(`/proc/${pid}/task/${tid}/stat`);
      // fields[0] is field 3 (state): utime is field 14, stime 15.
      const [, waitNs] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number);
      threads.set(tid, { name, user: Number(fields[11]), sys: Number(fields[12]), waitNs });
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  const io = Object.fromEntries(
    readFileSync(`/proc/${pid}/io`, 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(': '))
      .map(([k, v]) => [k, Number(v)]),
  );
  return { at: Date.now(), threads, readBytes: io.read_bytes, writeBytes: io.write_bytes };
}

const percent = (ticks, ms) => `${Math.round((ticks / HZ / (ms / 1000)) * 100)}%`;
const mb = (bytes) => `${(bytes / 1e6).toFixed(0)} MB`;

/** Per thread, samples taken and samples in state D, since the last line. */
const states = new Map();
const stateTimer = setInterval(() => {
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const s = states.get(tid) ?? { n: 0, disk: 0 };
      s.n++;
      if (statFields(`/proc/${pid}/task/${tid}/stat`).fields[0] === 'D') s.disk++;
      states.set(tid, s);
    }
  } catch {
    // The process or a thread ended.
  }
}, 100);

let before = sample();
const started = before.at;
const timer = setInterval(() => {
  if (!existsSync(`/proc/${pid}`)) {
    clearInterval(timer);
    clearInterval(stateTimer);
    return;
  }
  let now;
  try {
    now = sample();
  } catch {
    clearInterval(timer);
    clearInterval(stateTimer);
    return;
  }
  const ms = now.at - before.at;
  const busy = [];
  for (const [tid, t] of now.threads) {
    const b = before.threads.get(tid) ?? { user: 0, sys: 0, waitNs: 0 };
    const ticks = t.user - b.user + (t.sys - b.sys);
    const s = states.get(tid) ?? { n: 0, disk: 0 };
    const waited = percent(((t.waitNs - b.waitNs) / 1e9) * HZ, ms);
    const disk = s.n === 0 ? '?' : `${Math.round((s.disk / s.n) * 100)}%`;
    if (ticks >= (HZ * ms) / 1000 / 20)
      busy.push(`${tid === String(pid) ? 'main' : `${t.name}/${tid}`} user ${percent(t.user - b.user, ms)} sys ${percent(t.sys - b.sys, ms)} runqueue ${waited} disk ${disk}`);
  }
  states.clear();
  const file = sized !== undefined && existsSync(sized) ? `, ${sized.split('/').at(-1)} ${mb(statSync(sized).size)}` : '';
  console.log(`${((now.at - started) / 1000).toFixed(0)} s: ${busy.join(', ')}; read ${mb(now.readBytes - before.readBytes)}, written ${mb(now.writeBytes - before.writeBytes)}${file}`);
  before = now;
}, intervalMs);
