/**
 * What every management command shares: `--project`, `--config`, `--json`, and the composition
 * root of the management API: opening it for the chosen project (config, key resolution, the
 * HTTP client, throttling warnings on stderr) around the work.
 */
import type { Command } from 'commander';
import { loadConfig } from '../../config/load-config.js';
import { resolveManagement } from '../../config/resolve-project.js';
import { createHttpClient } from '../../http/http-client.js';
import { managementApi, type ManagementApi } from '../../management/management-api.js';
import { createManagementClient } from '../../management/management-client.js';
import { warn } from '../terminal/output.js';
import { configOption, jsonOption } from './common-options.js';

export interface ManagementOptions {
  project: string;
  config?: string;
  json?: boolean;
}

export function managementOptions(command: Command): Command {
  command.requiredOption('--project <name>', 'the project in the config (its apiHost, projectId and personal API key)');
  configOption(command);
  return jsonOption(command);
}

/** Runs `work` with the API of the chosen project; the HTTP client is closed afterwards. */
export async function withManagementApi<T>(options: ManagementOptions, work: (api: ManagementApi) => Promise<T>): Promise<T> {
  const target = { ...resolveManagement(loadConfig(options.config), options.project), configFile: options.config };
  const http = createHttpClient({ connections: 4 });
  try {
    const client = createManagementClient({
      target,
      http,
      onThrottle: (waitMs) => warn(`The API is throttling requests; waiting ${Math.ceil(waitMs / 1000)} s as it asks.`),
    });
    return await work(managementApi(client));
  } finally {
    await http.close();
  }
}
