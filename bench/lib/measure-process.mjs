// Runs one child process and measures its wall time, peak RSS and CPU time. Peak RSS comes from
// GNU time's %M (the kernel's ru_maxrss for the child, read after it exits) and CPU from its %U
// and %S when /usr/bin/time works here; otherwise peak RSS comes from polling /proc/<pid>/status
// VmHWM (which can miss a last spike) and CPU is unknown; otherwise both are unknown.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const GNU_TIME = '/usr/bin/time';
const POLL_MS = 20;

/** @type {'time' | 'proc' | 'none' | undefined} */
let method;

/** Which way peak RSS is read on this machine: tried once. */
export function rssMethod() {
  if (method !== undefined) return method;
  const dir = mkdtempSync(join(tmpdir(), 'bench-time-'));
  try {
    const out = join(dir, 'rss');
    const probe = spawnSync(GNU_TIME, ['-f', '%M', '-o', out, process.execPath, '-e', '0'], { stdio: 'ignore' });
    const kb = probe.status === 0 ? Number(readFileSync(out, 'utf8').trim().split('\n').at(-1)) : NaN;
    method = kb > 0 ? 'time' : readVmHwm(process.pid) !== null ? 'proc' : 'none';
  } catch {
    method = readVmHwm(process.pid) !== null ? 'proc' : 'none';
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return method;
}

/** @param {number} pid @returns {number | null} bytes */
function readVmHwm(pid) {
  try {
    const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/**
 * @typedef {object} Measurement
 * @property {number} wallMs
 * @property {number | null} peakRssBytes
 * @property {number | null} cpuMs user and system CPU of the process, all its threads
 * @property {string} stdout
 * @property {string} stderr
 */

/**
 * Runs `node <args>` (no npx, no shell: the measured process is node itself, under GNU time
 * when it is used) and fails with its stderr when it exits non-zero.
 * @param {readonly string[]} args
 * @param {{ cwd?: string, env?: Record<string, string>, label: string }} options
 * @returns {Promise<Measurement>}
 */
export async function measureNode(args, options) {
  const how = rssMethod();
  const dir = mkdtempSync(join(tmpdir(), 'bench-run-'));
  const timeFile = join(dir, 'time');
  const [command, argv] = how === 'time' ? [GNU_TIME, ['-f', '%U %S %M', '-o', timeFile, process.execPath, ...args]] : [process.execPath, [...args]];
  try {
    const startedNs = process.hrtime.bigint();
    const child = spawn(command, argv, { cwd: options.cwd, env: options.env === undefined ? undefined : { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let polled = /** @type {number | null} */ (null);
    const poll = how === 'proc' ? setInterval(() => (polled = readVmHwm(/** @type {number} */ (child.pid)) ?? polled), POLL_MS) : undefined;
    const [stdout, stderr, code] = await Promise.all([collect(child.stdout), collect(child.stderr), exitCode(child)]);
    const wallMs = Number(process.hrtime.bigint() - startedNs) / 1e6;
    clearInterval(poll);
    if (code !== 0) throw new Error(`${options.label} exited with ${code}: ${stderr.trim() || stdout.trim()}`);
    if (how !== 'time') return { wallMs, peakRssBytes: polled, cpuMs: null, stdout, stderr };
    const [user, system, kb] = (readFileSync(timeFile, 'utf8').trim().split('\n').at(-1) ?? '').split(' ').map(Number);
    const cpuMs = Number.isFinite(user) && Number.isFinite(system) ? Math.round((Number(user) + Number(system)) * 1000) : null;
    return { wallMs, peakRssBytes: Number(kb) * 1024, cpuMs, stdout, stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** @param {import('node:stream').Readable} stream */
async function collect(stream) {
  let text = '';
  stream.setEncoding('utf8');
  for await (const piece of stream) text += piece;
  return text;
}

/** @param {import('node:child_process').ChildProcess} child @returns {Promise<number | string>} */
function exitCode(child) {
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve(code ?? String(signal)));
  });
}
