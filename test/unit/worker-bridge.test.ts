/** What crosses a thread: errors as plain data keep their class (so their exit code) and hints; and the in-flight bound. */
import { describe, expect, it } from 'vitest';
import { ExitCode, InputError, MigrateError, StagingError } from '../../src/errors.js';
import { InFlight } from '../../src/util/in-flight.js';
import { errorData, reviveError } from '../../src/util/worker-bridge.js';

describe('errors across threads', () => {
  it.each<[string, Error, { class: new (...args: never[]) => Error; exitCode?: number }]>([
    ['an input error', new InputError('a.csv: the file is empty (no header row)', ['hint']), { class: InputError, exitCode: ExitCode.input }],
    ['a staging error', new StagingError('locked'), { class: StagingError, exitCode: ExitCode.staging }],
    ['a bare MigrateError', new MigrateError('odd', ExitCode.internal), { class: MigrateError, exitCode: ExitCode.internal }],
    ['any other error', new TypeError('x is not a function'), { class: Error }],
  ])('%s keeps its message, stack and class', (_name, error, expected) => {
    // Through structured clone, as postMessage sends it.
    const revived = reviveError(structuredClone(errorData(error)));
    expect(revived).toBeInstanceOf(expected.class);
    expect(revived.message).toBe(error.message);
    expect(revived.stack).toBe(error.stack);
    if (expected.exitCode !== undefined) expect((revived as MigrateError).exitCode).toBe(expected.exitCode);
  });

  it('keeps the hints of our errors', () => {
    expect((reviveError(errorData(new InputError('bad', ['Run it again.']))) as MigrateError).hints).toEqual(['Run it again.']);
  });
});

describe('InFlight', () => {
  it('waits below a bound, then for all', async () => {
    const inFlight = new InFlight();
    const releases: Array<() => void> = [];
    const task = () => new Promise<void>((resolve) => releases.push(resolve));
    inFlight.add(task());
    inFlight.add(task());
    let below = false;
    const waiting = inFlight.below(2).then(() => (below = true));
    await Promise.resolve();
    expect(below).toBe(false);
    releases[0]!();
    await waiting;
    expect(inFlight.size).toBe(1);
    const drained = inFlight.drain();
    releases[1]!();
    await drained;
    expect(inFlight.size).toBe(0);
  });
});
