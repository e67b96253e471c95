/**
 * The Python tools the tests use (moto's S3 server; pyarrow and fastavro, writers of Parquet and
 * Avro that are not ours), in a virtual environment under the user's cache folder. Made once by
 * vitest's globalSetup and reused by later runs; a change to the package list gives a new folder.
 * Two runs starting at once each build in a folder of their own and rename it into place: the
 * first rename wins and the other run uses the winner's. Nothing here is installed by hand.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * pip requirement specifiers; cramjam gives fastavro its snappy codec, lz4 its lz4 codec, and
 * zstandard its zstandard codec (conformance-files.py hands it to fastavro in place of
 * backports.zstd, which the package index may not have).
 */
export const PYTHON_PACKAGES = ['moto[server]', 'pyarrow', 'fastavro', 'cramjam', 'lz4', 'zstandard'] as const;
const IMPORT_CHECK = 'import moto.server, pyarrow, pyarrow.parquet, fastavro, cramjam, lz4.block, zstandard';

export interface PythonEnv {
  /** The venv's python; run `python -m moto.server` for moto (a renamed venv's scripts keep the old path). */
  python: string;
}

class MissingTool extends Error {}

function run(command: string, args: string[]): { ok: boolean; output: string } {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.error) return { ok: false, output: result.error.message };
  return { ok: result.status === 0, output: `${result.stdout}${result.stderr}` };
}

function lastLine(text: string): string {
  return text.trim().split('\n').at(-1) ?? '';
}

function systemPython(): { command: string; version: string } {
  for (const command of ['python3', 'python']) {
    const probe = run(command, ['-c', 'import sys, venv; print(sys.version.split()[0]) if sys.version_info[0] == 3 else sys.exit(1)']);
    if (probe.ok) return { command, version: probe.output.trim() };
  }
  throw new MissingTool("the tests need Python 3 with its venv module: install it with `apt-get install -y python3 python3-venv` (or your system's equivalent)");
}

function venvRoot(): string {
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(cache, 'posthog-migrate');
}

// Prints the folders Python imports from, once the packages are imported.
const LISTED_CHECK = `${IMPORT_CHECK}; import sys, os, json; print(json.dumps([p for p in sys.path if os.path.isdir(p)]))`;

/** The modification times of `folders`: a package installed or removed in one changes its folder's time. */
function folderTimes(folders: readonly string[]): Record<string, number> | undefined {
  try {
    return Object.fromEntries(folders.map((folder) => [folder, statSync(folder).mtimeMs]));
  } catch {
    return undefined; // a folder gone
  }
}

/**
 * Importing the packages takes about a second, before every run's first test: once it has
 * passed, its import folders and their times are kept in `checked`, and while none of them has
 * changed the venv is taken to work without importing again.
 */
function works(dir: string): boolean {
  if (!existsSync(join(dir, 'ready'))) return false;
  const stamp = join(dir, 'checked');
  try {
    const kept = JSON.parse(readFileSync(stamp, 'utf8')) as Record<string, number>;
    const now = folderTimes(Object.keys(kept));
    if (now !== undefined && Object.keys(kept).length > 0 && Object.entries(kept).every(([folder, time]) => now[folder] === time)) return true;
  } catch {
    // no stamp yet, or an unreadable one: check by importing
  }
  const check = run(join(dir, 'bin', 'python'), ['-c', LISTED_CHECK]);
  if (!check.ok) return false;
  try {
    const times = folderTimes(JSON.parse(lastLine(check.output)) as string[]);
    if (times !== undefined) writeFileSync(stamp, JSON.stringify(times));
  } catch {
    // a warning printed last: no stamp, the next run imports again
  }
  return true;
}

function build(python: string, dir: string): void {
  // System site-packages are visible: what the machine already has (a preinstalled moto) is not fetched again.
  const made = run(python, ['-m', 'venv', '--system-site-packages', dir]);
  if (!made.ok) throw new MissingTool(`\`${python} -m venv\` failed (${lastLine(made.output)}): install Python's venv module with \`apt-get install -y python3-venv\``);
  const pip = run(join(dir, 'bin', 'python'), ['-m', 'pip', 'install', '--quiet', ...PYTHON_PACKAGES]);
  if (!pip.ok)
    throw new MissingTool(
      `the tests need the Python packages ${PYTHON_PACKAGES.join(' ')} and pip could not install them (${lastLine(pip.output)}): run \`${join(dir, 'bin', 'pip')} install ${PYTHON_PACKAGES.map((p) => `'${p}'`).join(' ')}\``,
    );
  const check = run(join(dir, 'bin', 'python'), ['-c', IMPORT_CHECK]);
  if (!check.ok) throw new MissingTool(`the test venv ${dir} cannot import its packages (${lastLine(check.output)})`);
  writeFileSync(join(dir, 'ready'), `${PYTHON_PACKAGES.join('\n')}\n`);
}

/** The venv, made when missing or broken; a missing tool ends the run with one line naming its install command. */
export function ensurePythonEnv(): PythonEnv {
  try {
    const system = systemPython();
    const key = createHash('sha256')
      .update(`${system.version}\n${PYTHON_PACKAGES.join('\n')}`)
      .digest('hex')
      .slice(0, 12);
    const dir = join(venvRoot(), `test-venv-${key}`);
    if (!works(dir)) {
      mkdirSync(venvRoot(), { recursive: true });
      const building = `${dir}.building-${process.pid}-${Date.now()}`;
      try {
        build(system.command, building);
        if (!works(dir)) {
          if (existsSync(dir)) rmSync(dir, { recursive: true, force: true }); // a broken one
          try {
            renameSync(building, dir);
          } catch {
            // Another run renamed its own first; it is as good as this one.
          }
        }
      } finally {
        rmSync(building, { recursive: true, force: true });
      }
      if (!works(dir)) throw new MissingTool(`the test venv ${dir} was made but does not work; remove it and run again`);
    }
    return { python: join(dir, 'bin', 'python') };
  } catch (error) {
    if (!(error instanceof MissingTool)) throw error;
    process.stderr.write(`npm test: ${error.message}\n`);
    process.exit(1);
  }
}
