/**
 * Every command printed for the user to run next is pasteable: it names the staging file and
 * the config when they are not the defaults, quoted for the shell, and only to commands that
 * take those flags (checked against the real program).
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { CONFIG_COMMANDS, migrateCommand, STAGING_COMMANDS } from '../../src/util/migrate-command.js';

describe('migrateCommand', () => {
  it.each([
    ['the defaults are left out', 'rejects', {}, 'migrate rejects'],
    ['the default staging file, however written', 'status', { staging: resolve('migration.db') }, 'migrate status'],
    ['the default config, however written', 'doctor --project test', { config: './migrate.config.json' }, 'migrate doctor --project test'],
    ['another staging file, as an absolute path', 'rejects', { staging: 'other.db' }, `migrate rejects --staging ${resolve('other.db')}`],
    ['quoted for the shell', 'rejects', { staging: "/data/it's here.db" }, "migrate rejects --staging '/data/it'\\''s here.db'"],
    ['another config', 'verify --project prod', { staging: '/d/m.db', config: '/d/prod.json' }, 'migrate verify --project prod --staging /d/m.db --config /d/prod.json'],
    ['status takes no --config', 'status', { staging: '/d/m.db', config: '/d/prod.json' }, 'migrate status --staging /d/m.db'],
    ['management commands take no --staging', 'exports download 7 --project test', { staging: '/d/m.db', config: '/d/c.json' }, 'migrate exports download 7 --project test --config /d/c.json'],
    ['a recorded config of null', 'resume --project test', { staging: '/d/m.db', config: null }, 'migrate resume --project test --staging /d/m.db'],
  ])('%s', (_name, args, place, expected) => expect(migrateCommand(args, place)).toBe(expected));
});

describe('the commands that take --staging and --config', () => {
  it('are those of the program', async () => {
    const program = await buildProgram(['node', 'migrate']);
    const takes =
      (flag: string) =>
      (command: Command): boolean =>
        command.options.some((o) => o.long === flag) || command.commands.some((sub) => sub.options.some((o) => o.long === flag));
    const names = (flag: string) =>
      program.commands
        .filter(takes(flag))
        .map((c) => c.name())
        .sort();
    expect(names('--staging')).toEqual([...STAGING_COMMANDS].sort());
    expect(names('--config')).toEqual([...CONFIG_COMMANDS].sort());
  });
});

describe('the commands the program loads', () => {
  it('is only the one named, and none for --version alone', async () => {
    expect((await buildProgram(['node', 'migrate', 'status'])).commands.map((c) => c.name())).toEqual(['status']);
    expect((await buildProgram(['node', 'migrate', '--version'])).commands).toEqual([]);
    expect((await buildProgram(['node', 'migrate', '-V'])).commands).toEqual([]);
    expect((await buildProgram(['node', 'migrate', '--version', 'status'])).commands.length).toBeGreaterThan(0);
  });
});
