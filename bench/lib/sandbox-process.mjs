// `migrate sandbox --count-only` in its own process on 127.0.0.1, so what a measured client
// uses is the client's alone. Its GET /_sandbox/stats says how many events it accepted.
import { spawn } from 'node:child_process';

/**
 * @typedef {object} Sandbox
 * @property {string} url
 * @property {{ id: number, role: string, apiKey: string }} testProject
 * @property {() => Promise<{ eventsByProject: Record<string, number>, answers: Record<string, number>, requests: number }>} stats
 * @property {() => Promise<void>} stop
 */

/**
 * @param {string} cli path to bin/migrate.js
 * @param {string[]} [extra] more sandbox options (a fault mode, say)
 * @returns {Promise<Sandbox>}
 */
export async function startSandbox(cli, extra = []) {
  const child = spawn(process.execPath, [cli, 'sandbox', '--port', '0', '--db', ':memory:', '--count-only', '--json', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  const info = await firstLine(child, () => stderr);
  const testProject = info.projects.find((/** @type {{ role: string }} */ p) => p.role === 'test');
  if (!testProject) throw new Error('the sandbox has no test project');
  if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(info.url)) throw new Error(`the sandbox is not on 127.0.0.1: ${info.url}`);
  return {
    url: info.url,
    testProject,
    stats: async () => {
      const response = await fetch(`${info.url}/_sandbox/stats`);
      if (!response.ok) throw new Error(`GET /_sandbox/stats answered ${response.status}`);
      return response.json();
    },
    stop: () => stop(child),
  };
}

/**
 * @param {import('node:child_process').ChildProcessByStdio<null, import('node:stream').Readable, import('node:stream').Readable>} child
 * @param {() => string} stderr
 */
function firstLine(child, stderr) {
  return new Promise((resolve, reject) => {
    let out = '';
    const early = (/** @type {number | null} */ code) => reject(new Error(`the sandbox exited early (${code}): ${stderr().trim()}`));
    child.once('error', reject);
    child.once('close', early);
    child.stdout.setEncoding('utf8').on('data', function onData(data) {
      out += data;
      const end = out.indexOf('\n');
      if (end < 0) return;
      child.stdout.off('data', onData);
      child.stdout.resume();
      child.off('close', early);
      try {
        resolve(JSON.parse(out.slice(0, end)));
      } catch (error) {
        reject(error);
      }
    });
  });
}

/** @param {import('node:child_process').ChildProcess} child */
function stop(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve(undefined);
    child.once('close', () => resolve(undefined));
    child.kill('SIGTERM');
  });
}
