/** `migrate verify` argv -> input with the real program (as cli-argv.test.ts does for the other commands). */
import { describe, expect, it } from 'vitest';
import { toVerifyInput, type VerifyOptions } from '../../src/cli/commands/verify/verify-input.js';
import { parseArgv } from '../helpers/parse-argv.js';

async function verifyInput(args: string[]) {
  const { options } = await parseArgv(['verify', ...args]);
  return { input: toVerifyInput(options as unknown as VerifyOptions), options };
}

describe('verify', () => {
  it('checks the whole staged range once by default', async () => {
    expect((await verifyInput(['--project', 'prod'])).input).toEqual({
      staging: './migration.db',
      config: undefined,
      project: 'prod',
      since: undefined,
      until: undefined,
      byEvent: false,
      waitMs: 0,
      resendMissing: false,
    });
  });

  it('takes a range of days, by event, a wait, re-sending and a report', async () => {
    const { input, options } = await verifyInput([
      '--project',
      'prod',
      '--since',
      '2023-01-01',
      '--until',
      '2025-12-31',
      '--by-event',
      '--wait',
      '10m',
      '--resend-missing',
      '--html',
      'r.html',
      '--staging',
      'm.db',
      '--config',
      'c.json',
      '--json',
    ]);
    expect(input).toEqual({ staging: 'm.db', config: 'c.json', project: 'prod', since: '2023-01-01', until: '2025-12-31', byEvent: true, waitMs: 600_000, resendMissing: true });
    expect(options).toMatchObject({ html: 'r.html', json: true });
  });

  it.each([
    [['--project', 'prod', '--since', '2025-02-30'], '--since takes a day as YYYY-MM-DD (UTC)'],
    [['--project', 'prod', '--until', 'today'], '--until takes a day as YYYY-MM-DD (UTC)'],
    [['--project', 'prod', '--wait', 'soon'], '--wait takes a duration such as 10m, 90s or 1h30m'],
    [['--by-event'], "required option '--project <name>' not specified"],
  ])('%j is refused by the parser', async (args, message) => {
    await expect(parseArgv(['verify', ...args])).rejects.toThrow(message);
  });

  it('refuses a range that ends before it starts', async () => {
    await expect(verifyInput(['--project', 'prod', '--since', '2025-02-01', '--until', '2025-01-31'])).rejects.toThrow('--since 2025-02-01 is after --until 2025-01-31');
  });
});
