/**
 * The built CLI run as the unprivileged user `nobody`, wherever this checkout lives: a home
 * directory of mode 700 or a `mktemp -d` folder cannot be read by another user, so the CLI
 * (bin/, dist/, package.json and the packages it runs on) is copied into a directory everyone
 * may read. Undefined where this process may not switch users, or `nobody` cannot run Node.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { asNobody } from './small-disk.js';
import { REPO_ROOT, type CliOptions } from './run-cli.js';

/** The packages `migrate` runs on: the dependencies in package.json and theirs, as installed (flat). */
function runtimePackages(): string[] {
  const found = new Set<string>();
  const visit = (name: string): void => {
    if (found.has(name)) return;
    found.add(name);
    const manifest = JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', name, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    for (const dependency of Object.keys(manifest.dependencies ?? {})) {
      if (existsSync(join(REPO_ROOT, 'node_modules', dependency))) visit(dependency);
    }
  };
  const own = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  for (const name of Object.keys(own.dependencies)) visit(name);
  return [...found];
}

/** Copies the built CLI into `dir` (made readable by all); returns the path of its bin/migrate.js. */
function copyCli(dir: string): string {
  const root = join(dir, 'migrate-cli');
  mkdirSync(join(root, 'node_modules'), { recursive: true });
  for (const part of ['bin', 'dist', 'package.json']) cpSync(join(REPO_ROOT, part), join(root, part), { recursive: true });
  for (const name of runtimePackages()) cpSync(join(REPO_ROOT, 'node_modules', name), join(root, 'node_modules', name), { recursive: true });
  chmodSync(dir, 0o755);
  spawnSync('chmod', ['-R', 'a+rX', root]);
  return join(root, 'bin', 'migrate.js');
}

/** Options for runCli that run the CLI as `nobody` from a copy in `dir`; undefined when that cannot be done here. */
export function cliAsNobody(dir: string): Pick<CliOptions, 'wrapper' | 'cli'> | undefined {
  const wrapper = asNobody();
  if (wrapper === undefined) return undefined;
  const cli = copyCli(dir);
  const probe = spawnSync(wrapper[0]!, [...wrapper.slice(1), process.execPath, cli, '--version'], { stdio: 'ignore' });
  return probe.status === 0 ? { wrapper, cli } : undefined;
}
