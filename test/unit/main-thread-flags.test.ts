/** The main thread's V8 flags: added only when neither Node's arguments nor NODE_OPTIONS set them. */
import { describe, expect, it } from 'vitest';
import { MAIN_SEMI_SPACE_MB, missingMainThreadFlags, restartArgv } from '../../src/util/main-thread-flags.js';

const SEMI = `--max-semi-space-size=${MAIN_SEMI_SPACE_MB}`;

describe('missingMainThreadFlags', () => {
  it.each<[string, string[], string | undefined, string[]]>([
    ['nothing given', [], undefined, [SEMI]],
    ['other flags given', ['--enable-source-maps', '--max-old-space-size=4096'], '--no-warnings', [SEMI]],
    ['given on the command line', ['--max-semi-space-size=32'], undefined, []],
    ['given as two words', ['--max-semi-space-size', '32'], undefined, []],
    ['given with underscores', ['--max_semi_space_size=2'], undefined, []],
    ['given in NODE_OPTIONS', [], '--require x.cjs  --max-semi-space-size=16', []],
    ['a longer flag is another flag', ['--max-semi-space-size-extra=1'], '', [SEMI]],
  ])('%s', (_, execArgv, nodeOptions, expected) => {
    expect(missingMainThreadFlags(execArgv, nodeOptions)).toEqual(expected);
  });
});

describe('restartArgv', () => {
  it('puts the missing flags first and keeps Node’s and the script’s arguments in order', () => {
    expect(restartArgv('/n/node', ['--inspect'], '/b/migrate.js', ['import', '--project', 'p'], undefined)).toEqual(['/n/node', SEMI, '--inspect', '/b/migrate.js', 'import', '--project', 'p']);
  });

  it('is undefined when nothing is missing: the restarted process does not start again', () => {
    const argv = restartArgv('/n/node', [], '/b/migrate.js', ['status'], undefined)!;
    expect(restartArgv(argv[0]!, argv.slice(1, -2), argv.at(-2)!, argv.slice(-1), undefined)).toBeUndefined();
  });
});
