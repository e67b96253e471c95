/**
 * What sandbox prints: the banner (URL, projects, keys, a config to paste, the faults) or one
 * JSON line, and the counts when it stops. The keys printed are the sandbox's own fake ones.
 */
import { describeFaults, listSandboxProjects, sandboxPersonalKeys, type CaptureFaults, type RunningSandbox, type SandboxProject } from '../../../sandbox/index.js';
import { print, printJson, printUnredacted } from '../../terminal/output.js';
import type { SandboxCommandOptions } from './sandbox-input.js';

/**
 * The config to paste: one entry per sandbox project, keyed test and prod, with the owner's
 * all-scopes personal key so the management commands work too.
 */
export function configSnippet(url: string, projects: readonly SandboxProject[], personalApiKey?: string): string {
  const entries: Record<string, unknown> = {};
  for (const p of projects) {
    entries[p.role === 'production' ? 'prod' : 'test'] = { role: p.role, host: url, apiKey: p.apiToken, projectId: String(p.id), ...(personalApiKey ? { personalApiKey } : {}) };
  }
  return JSON.stringify({ projects: entries }, null, 2);
}

export function printBanner(sandbox: RunningSandbox, db: string, options: SandboxCommandOptions, faults: CaptureFaults): void {
  const projects = listSandboxProjects(sandbox.store);
  const personalKeys = sandboxPersonalKeys(sandbox.store);
  const ownerKey = personalKeys.find((k) => k.label === 'owner-all')?.value;
  if (options.json) {
    // One line a script can read (npm run demo does); the keys are the sandbox's own fake ones.
    printUnredacted(
      JSON.stringify({
        url: sandbox.url,
        port: sandbox.port,
        db,
        projects: projects.map((p) => ({ id: p.id, name: p.name, role: p.role, apiKey: p.apiToken })),
        personalKeys: personalKeys.map((k) => ({ label: k.label, email: k.email, scopes: k.scopes, key: k.value })),
      }),
    );
    return;
  }
  print(`PostHog-compatible sandbox on ${sandbox.url} (store: ${db}${options.countOnly ? ', count-only: events are counted, not stored' : ''})`);
  print("Projects (the keys are this sandbox's own, not PostHog keys):");
  for (const p of projects) printUnredacted(`  ${p.id}  ${p.name.padEnd(18)}  ${p.apiToken}`);
  print('Personal API keys (for the management commands):');
  for (const k of personalKeys) printUnredacted(`  ${k.label.padEnd(20)}  ${k.email.padEnd(22)}  ${k.scopes.join(' ').padEnd(40)}  ${k.value}`);
  print('Paste into migrate.config.json:');
  printUnredacted(configSnippet(sandbox.url, projects, ownerKey));
  print(`Faults: ${describeFaults(faults)}`);
  print('Stop with Ctrl-C.');
}

export function printStopped(stats: RunningSandbox['capture']['stats'], json: boolean): void {
  if (json) printJson(stats);
  else print(`Sandbox stopped: ${stats.requests} capture requests, events by project ${JSON.stringify(stats.eventsByProject)}.`);
}
