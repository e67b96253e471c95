/**
 * On a Node older than package.json's `engines`, bin/migrate.js says which Node it needs, which
 * one it found and how to get one, in one line, before loading anything an older Node cannot
 * link (no stack trace). Uses the machine's own older Node when there is one.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, REPO_ROOT } from '../helpers/run-cli.js';

const engines = (JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
const [needMajor = 0, needMinor = 0] = engines
  .replace(/^>=\s*/, '')
  .split('.')
  .map(Number);

function versionOf(node: string): string | undefined {
  try {
    return execFileSync(node, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim().replace(/^v/, '');
  } catch {
    return undefined;
  }
}

function isTooOld(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major < needMajor || (major === needMajor && minor < needMinor);
}

/** A Node binary older than the project needs: the usual system places, then each one on PATH. */
function olderNode(): { node: string; version: string } | undefined {
  const onPath = (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'node'));
  for (const node of ['/usr/local/bin/node', '/usr/bin/node', ...onPath]) {
    if (!existsSync(node)) continue;
    const version = versionOf(node);
    if (version !== undefined && isTooOld(version)) return { node, version };
  }
  return undefined;
}

const old = olderNode();

describe.skipIf(old === undefined)(`an older Node${old === undefined ? ' (skipped: no Node older than the engines field on this machine)' : ` (${old.version})`}`, () => {
  it.each([['--version'], ['import', 'nothing.db']])('migrate %s ends with one line saying which Node is needed, exit 10', (...args) => {
    const result = spawnSync(old!.node, [CLI, ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 20_000 });
    expect(result.status).toBe(10);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`Node.js ${needMajor}.${needMinor} or newer`);
    expect(lines[0]).toContain(`this is Node.js ${old!.version}`);
    expect(lines[0]).toContain('npx -p node@24');
    expect(result.stderr).not.toMatch(/SyntaxError|\n\s+at /);
  });
});
