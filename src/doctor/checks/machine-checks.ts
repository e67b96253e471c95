/**
 * Check 5: the machine. Free disk next to the staging file against what it still needs, the
 * clock against the server's (the staging rules compare times with now), and Node's version.
 * Pure.
 */
import { bytes } from '../../util/format.js';
import { ok, problem, warning, type CheckResult } from '../check-result.js';
import type { MachineFacts } from '../doctor-facts.js';
import { roomFor } from '../../machine/disk-estimate.js';

/** Clock skew above which the rules about recent and future events may judge wrongly, in ms. */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;
/** The oldest Node.js the tool supports (package.json "engines"). */
export const MIN_NODE: readonly [number, number] = [22, 19];

const FREE_UP = 'Free disk space there, or put the staging file on a larger disk (--staging <file>).';

export function diskCheck(machine: MachineFacts): CheckResult {
  const disk = machine.disk;
  if ('error' in disk) return warning('disk', `free space next to ${disk.path} could not be read: ${disk.error}`, 'Check that there is room for the staging file.');
  const free = `${bytes(disk.freeBytes)} free next to ${disk.path}`;
  if (machine.neededBytes === undefined || machine.neededBytes === 0) return ok('disk', `${free}; nothing staged is waiting to be imported`);
  const need = `the import's delivery records need about ${bytes(machine.neededBytes)}`;
  const details = { freeBytes: disk.freeBytes, neededBytes: machine.neededBytes };
  switch (roomFor(disk.freeBytes, machine.neededBytes)) {
    case 'short':
      return problem('disk', `${free}; ${need}: the staging file would fill the disk`, FREE_UP, details);
    case 'tight':
      return warning('disk', `${free}; ${need}, more than half of it`, FREE_UP, details);
    case 'enough':
      return ok('disk', `${free}; ${need}`, details);
  }
}

export function clockCheck(machine: MachineFacts): CheckResult {
  const serverMs = machine.serverDate === undefined ? Number.NaN : Date.parse(machine.serverDate);
  if (Number.isNaN(serverMs)) return ok('clock', 'not measured: the server sent no readable Date header');
  const skewMs = machine.localNowMs - serverMs;
  const minutes = Math.round(Math.abs(skewMs) / 60_000);
  const direction = skewMs > 0 ? 'ahead of' : 'behind';
  if (Math.abs(skewMs) > MAX_CLOCK_SKEW_MS) {
    return warning(
      'clock',
      `this machine's clock is ${minutes} minutes ${direction} the server's: the staging rules about recent and future events compare times with now`,
      "Set this machine's clock (NTP), then stage again.",
      { skewMs },
    );
  }
  return ok('clock', `this machine's clock is within ${Math.max(1, Math.ceil(Math.abs(skewMs) / 1000))} s of the server's`, { skewMs });
}

export function nodeCheck(machine: MachineFacts): CheckResult {
  const [major = 0, minor = 0] = machine.nodeVersion.replace(/^v/, '').split('.').map(Number);
  const [minMajor, minMinor] = MIN_NODE;
  if (major < minMajor || (major === minMajor && minor < minMinor)) {
    return problem('node', `Node.js ${machine.nodeVersion} is older than the ${minMajor}.${minMinor} this tool needs`, `Install Node.js ${minMajor}.${minMinor} or newer.`);
  }
  return ok('node', `Node.js ${machine.nodeVersion}`);
}
