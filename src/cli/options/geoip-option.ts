/**
 * --no-geoip, an option of the staging commands: PostHog locates every event without its own
 * `$ip` at the machine that sends it, so rows without one always carry `$geoip_disable`; with
 * --no-geoip every row does, its own `$ip` or not. Applied at staging (the staging file holds
 * each event as it is sent), so `import --no-geoip` is answered with where it belongs.
 */
import { Option, type Command } from 'commander';
import { UsageError } from '../../errors.js';

export function geoipOption(command: Command): Command {
  return command.option('--no-geoip', 'GeoIP off for every row, even those with their own $ip (rows without one never use it: PostHog would locate them at this machine)');
}

/** import and resume: the flag is accepted only to say where it belongs. */
export function misplacedGeoipOption(command: Command): Command {
  return command.addOption(new Option('--no-geoip').hideHelp());
}

export function refuseMisplacedGeoip(options: { geoip?: boolean }, command: string): void {
  if (options.geoip !== false) return;
  throw new UsageError(`--no-geoip is an option of the staging commands (export-source, identify-users, identify-groups), not of ${command}: the staging file holds each event exactly as it is sent`, [
    'Stage the files again into a new staging file with --no-geoip, then import that file.',
  ]);
}
