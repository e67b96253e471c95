/** Options several commands share, declared once so their names and defaults agree, and their value parsers. */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { DEFAULT_STAGING_FILE } from '../../util/migrate-command.js';

export { DEFAULT_STAGING_FILE };

export interface StagingOptions {
  staging: string;
}

export interface ConfigOptions {
  config?: string;
}

export function stagingOption(command: Command): Command {
  return command.option('--staging <file>', 'the staging file', DEFAULT_STAGING_FILE);
}

export function configOption(command: Command): Command {
  return command.option('--config <file>', 'config file (default: $MIGRATE_CONFIG or ./migrate.config.json)');
}

export function quietOption(command: Command): Command {
  return command.option('-q, --quiet', 'no progress output');
}

export function jsonOption(command: Command): Command {
  return command.addOption(new Option('--json', 'print the result as JSON'));
}

/** Parses a non-negative integer option value, with the option's name in the error. */
export function integerOption(name: string, min = 0): (value: string) => number {
  return (value: string) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`${name} must be an integer >= ${min}`);
    return n;
  };
}

/** Collects a repeatable option's values (--column, --group). */
export function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
