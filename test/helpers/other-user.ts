/**
 * The built CLI run as the unprivileged user `nobody`, wherever this checkout lives: a home
 * directory of mode 700 or a `mktemp -d` folder cannot be read by another user, so the CLI
 * (bin/, dist/, package.json and the packages it runs on) is copied into a directory everyone
 * may read. Undefined where this process may not switch users, or `nobody` cannot run Node.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, linkSync, mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
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

/** Copies `from` into `to`, readable by all: a hard link for a file others may read already (fast), else a copy made readable. */
function copyTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  chmodSync(to, 0o755);
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const [source, target] = [join(from, entry.name), join(to, entry.name)];
    if (entry.isDirectory()) copyTree(source, target);
    else if (entry.isFile()) copyReadable(source, target);
  }
}

function copyReadable(source: string, target: string): void {
  const mode = statSync(source).mode;
  if ((mode & 0o004) !== 0) {
    try {
      return linkSync(source, target);
    } catch {
      // Another file system: copy it.
    }
  }
  copyFileSync(source, target);
  chmodSync(target, (mode & 0o777) | 0o444);
}

/** Copies the built CLI into `dir` (made readable by all); returns the path of its bin/migrate.js. */
function copyCli(dir: string): string {
  const root = join(dir, 'migrate-cli');
  for (const part of ['bin', 'dist']) copyTree(join(REPO_ROOT, part), join(root, part));
  copyReadable(join(REPO_ROOT, 'package.json'), join(root, 'package.json'));
  for (const name of runtimePackages()) copyTree(join(REPO_ROOT, 'node_modules', name), join(root, 'node_modules', name));
  for (const folder of [dir, root, join(root, 'node_modules')]) chmodSync(folder, 0o755);
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
