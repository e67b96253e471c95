/** Finds, reads and validates the config file: --config, then $MIGRATE_CONFIG, then ./migrate.config.json. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { UsageError } from '../errors.js';
import { DEFAULT_CONFIG_FILE } from '../util/migrate-command.js';
import { formatZodIssues } from '../util/zod-issues.js';
import { configSchema, type MigrateConfig } from './config-schema.js';

export { DEFAULT_CONFIG_FILE };

export function configPath(explicit: string | undefined, env: Readonly<Record<string, string | undefined>> = process.env): string {
  return resolve(explicit ?? env.MIGRATE_CONFIG ?? DEFAULT_CONFIG_FILE);
}

/** Parses config text; `file` names it in errors. Pure apart from the message. */
export function parseConfig(text: string, file: string): MigrateConfig {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file}: not valid JSON (${(error as Error).message})`);
  }
  const result = configSchema.safeParse(json);
  if (!result.success) {
    throw new UsageError(`${file}: invalid config\n  ${formatZodIssues(result.error).join('\n  ')}`);
  }
  return result.data;
}

export function loadConfig(explicit?: string): MigrateConfig {
  const file = configPath(explicit);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') {
      throw new UsageError(`no config file at ${file}`, [
        `Create ${DEFAULT_CONFIG_FILE} (see the README), or pass --config <file> or set MIGRATE_CONFIG.`,
        'Try `migrate sandbox` for a local project to rehearse with.',
      ]);
    }
    throw new UsageError(`${file}: cannot be read (${code ?? (error as Error).message})`);
  }
  return parseConfig(text, file);
}
