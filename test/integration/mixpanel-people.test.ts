/**
 * export-source --from mixpanel-api --people against the Mixpanel stand-in's Engage API: in
 * process on the test clock (nothing sleeps), 10,000 user profiles and 50 group profiles, paced
 * to the hourly limit, with a 429, a run stopped half-way and resumed at the page after the last
 * one recorded, then imported into the sandbox, where each is a person or group with every
 * property; through the built CLI, a run killed with kill -9 mid-page, resumed in its session,
 * and a session that ended (the listing starts again, the profiles already staged recognised).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InterruptedError } from '../../src/errors.js';
import type { RunningSandbox } from '../../src/sandbox/sandbox-server.js';
import { stageFromApi, type StageApiInput } from '../../src/stage-sources/stage-api.js';
import { MIXPANEL_PROFILE_RENAMES } from '../../src/sources/vendors/mixpanel-profiles.js';
import { startMixpanelStandin, type MixpanelStandin } from '../helpers/mixpanel-api-standin.js';
import type { MixpanelProfile } from '../helpers/mixpanel-engage-standin.js';
import { recordingReporter } from '../helpers/recording-reporter.js';
import { runCli } from '../helpers/run-cli.js';
import { sandboxTokens, useSandbox } from '../helpers/sandbox.js';
import { fetchApi, MIXPANEL_SECRET, mixpanelTarget, startFetch } from '../helpers/source-api-cli.js';
import { StagingStore } from '../../src/staging/staging-store.js';
import { rangesOf } from '../../src/staging/source-ranges.js';
import { FAST } from '../helpers/staging.js';
import { testClock } from '../helpers/test-clock.js';
import { useTempDir } from '../helpers/temp-dir.js';

const tempDir = useTempDir();
const sandboxAt = useSandbox();
const PROJECT = '314159';
const USER = 'sa.people';
const NOW = Date.UTC(2025, 5, 20, 12);
const PAGE = 500;

const standins: MixpanelStandin[] = [];
afterEach(async () => {
  for (const s of standins.splice(0)) await s.close();
});

function user(i: number): MixpanelProfile {
  return {
    $distinct_id: `user-${i}`,
    $properties: {
      $email: `user${i}@example.com`,
      $name: `User ${i}`,
      $first_name: 'User',
      $last_name: String(i),
      $phone: `+1555${String(i).padStart(7, '0')}`,
      $avatar: `https://example.com/a/${i}.png`,
      $created: '2023-04-01T08:00:00',
      ...(i % 3 === 0 ? {} : { $last_seen: '2025-05-01T09:30:00' }),
      plan: i % 2 === 0 ? 'pro' : 'free',
      company: `co-${i % 50}`,
      seats: i % 7,
      tags: ['a', `t${i % 4}`],
      ...(i === 7 ? { email: 'own-field@example.com' } : {}),
    },
  };
}

function company(i: number): MixpanelProfile {
  return { $distinct_id: `co-${i}`, $properties: { $name: `Company ${i}`, industry: i % 2 === 0 ? 'retail' : 'media', employees: 10 * i } };
}

/** What PostHog should hold for a profile: the reserved names renamed unless the profile has that name already. */
function expected(profile: MixpanelProfile): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(profile.$properties)) {
    const to = MIXPANEL_PROFILE_RENAMES[key];
    out[to !== undefined && !(to in profile.$properties) ? to : key] = value;
  }
  return out;
}

const users = Array.from({ length: 10_000 }, (_, i) => user(i));
const companies = Array.from({ length: 50 }, (_, i) => company(i));

async function setup(sandbox: RunningSandbox, onPage: (served: readonly string[]) => void) {
  const clock = testClock(NOW);
  const day = '2025-06-01';
  const events = { [day]: [{ event: 'Signed Up', properties: { time: Date.parse(`${day}T10:00:00Z`), distinct_id: 'user-1', $insert_id: 'e1', company_id: 'co-1' } }] };
  const standin = await startMixpanelStandin({
    projectId: PROJECT,
    username: USER,
    secret: MIXPANEL_SECRET,
    days: events,
    engage: { users, groups: { '7': companies }, pageSize: PAGE, nowMs: clock.now, onPage },
  });
  standins.push(standin);
  const dir = tempDir();
  const config = join(dir, 'migrate.config.json');
  const tokens = sandboxTokens(sandbox);
  writeFileSync(
    config,
    JSON.stringify({
      projects: { test: { role: 'test', host: sandbox.url, apiKey: tokens.test }, prod: { role: 'production', host: sandbox.url, apiKey: tokens.prod } },
      sources: { mixpanel: { projectId: PROJECT, username: USER, secretEnv: 'MIXPANEL_SECRET', apiHost: standin.url, groupProfiles: { company_id: 7 } } },
    }),
  );
  const input: StageApiInput = {
    api: 'mixpanel-api',
    people: true,
    staging: join(dir, 'migration.db'),
    config,
    env: { MIXPANEL_SECRET },
    start: day,
    end: day,
    nowMs: NOW,
    readerOptions: {},
    rules: { nowMs: NOW },
    ingestion: { geoipFromIp: true, importSource: 'mixpanel' },
    recordedOptions: { timezone: 'UTC' },
    workers: 0,
    concurrency: 1,
    idleTimeoutMs: 10_000,
    retryPolicy: { initialDelayMs: 1000, maxDelayMs: 60_000, maxTotalWaitMs: 600_000 },
    maxRequestsPerHour: 12,
  };
  return { clock, standin, input, dir, config };
}

describe('Mixpanel profiles through the Engage API', () => {
  it('stages 10,000 user and 50 group profiles, paced, with a 429, stopped and resumed, and PostHog holds them all', async () => {
    const sandbox = await sandboxAt();
    let stopAt: number | undefined = 5;
    const controller = new AbortController();
    const { clock, standin, input, dir, config } = await setup(sandbox, (served) => {
      if (served.length === stopAt) controller.abort();
    });
    standin.inject('engage:users', { type: 'answer', status: 429, headers: { 'retry-after': '30' }, body: JSON.stringify({ error: 'too many requests' }) });

    // The first run is stopped while page 5 is answered: 4 pages staged and recorded.
    await expect(stageFromApi(input, recordingReporter(), controller.signal, clock)).rejects.toBeInstanceOf(InterruptedError);
    expect(clock.waits).toContain(30_000);
    const firstSession = standin.requests.find((r) => r.path === '/api/query/engage' && r.query.session_id !== undefined)!.query.session_id;

    // The second goes on at page 5 in the same session.
    stopAt = undefined;
    const reporter = recordingReporter();
    const firstOfSecond = standin.requests.length;
    const result = await stageFromApi(input, reporter, new AbortController().signal, clock);
    const resumed = standin.requests[firstOfSecond]!;
    expect(resumed.query).toMatchObject({ session_id: firstSession, page: '4' });
    expect(reporter.notices).toContain('Mixpanel persons: going on at page 5 of the listing an earlier run began');
    // 12 queries an hour here (60 at most): the wait for the hourly limit is shown with the time left.
    expect(reporter.notices).toContain("Mixpanel persons: page 12 of 20 waits 1h00m for the Query API's limit (12 an hour); about 1h00m left");
    expect(clock.waits.filter((ms) => ms > 60_000)).toEqual([3_600_000]);
    const persons = result.people!.find((p) => p.part === 'persons')!;
    expect(persons).toMatchObject({ status: 'done', rowsRead: 10_000 - 4 * PAGE, staged: 10_000 - 4 * PAGE, alreadyStaged: 0, rejected: 0 });
    expect(result.people!.find((p) => p.part === 'groups:company_id')).toMatchObject({ status: 'done', rowsRead: 50, staged: 50 });

    // A third run reads nothing again.
    const before = standin.requests.length;
    const third = recordingReporter();
    await stageFromApi(input, third, new AbortController().signal, clock);
    expect(standin.requests.length).toBe(before);
    expect(third.notices).toContain('Mixpanel persons: listed completely by an earlier run; not read again');

    const imported = await runCli(['import', '--project', 'test', '--config', config, '--staging', input.staging, ...FAST], { cwd: dir });
    expect(imported.code, imported.stderr).toBe(0);
    const stored = sandbox.store.db.prepare('SELECT d.distinct_id AS id, p.properties FROM person_distinct_ids d JOIN persons p ON p.id = d.person_id WHERE d.team_id = 1').all() as Array<{
      id: string;
      properties: string;
    }>;
    const byId = new Map(stored.map((r) => [r.id, JSON.parse(r.properties) as Record<string, unknown>]));
    for (const profile of users) expect(byId.get(profile.$distinct_id), profile.$distinct_id).toEqual(expected(profile));
    const groups = sandbox.store.db
      .prepare(
        "SELECT g.group_key, g.group_properties FROM groups g JOIN group_types t ON t.team_id = g.team_id AND t.group_type_index = g.group_type_index WHERE g.team_id = 1 AND t.group_type = 'company_id'",
      )
      .all() as Array<{ group_key: string; group_properties: string }>;
    expect(Object.fromEntries(groups.map((g) => [g.group_key, JSON.parse(g.group_properties)]))).toEqual(Object.fromEntries(companies.map((c) => [c.$distinct_id, expected(c)])));
  }, 60_000);

  it('a run killed (kill -9) while a page is answered goes on at that page in the same session; an ended session lists again, recognising what was staged', async () => {
    const day = '2025-06-01';
    let kill: (() => void) | undefined;
    let standin: MixpanelStandin;
    standin = await startMixpanelStandin({
      projectId: PROJECT,
      username: USER,
      secret: MIXPANEL_SECRET,
      days: { [day]: [{ event: 'Signed Up', properties: { time: Date.parse(`${day}T10:00:00Z`), distinct_id: 'user-1', $insert_id: 'e1' } }] },
      engage: {
        users: users.slice(0, 1000),
        pageSize: 100,
        onPage: (served) => {
          if (served.length === 3) kill?.();
          // The resumed run's session ends after its third page: page 6 is refused, and the listing starts again.
          if (served.length === 6) standin.engage!.endSessions();
        },
      },
    });
    standins.push(standin);
    const target = mixpanelTarget(tempDir(), standin.url, PROJECT, USER);
    const first = startFetch(target, 'mixpanel-api', day, day, ['--people']);
    kill = () => first.child.kill('SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');
    kill = undefined;
    const again = await fetchApi(target, 'mixpanel-api', day, day, ['--people']);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('Mixpanel persons: going on at page 3 of the listing an earlier run began');
    expect(again.stderr).toContain("Mixpanel persons: the listing's session ended at page 6; listing again from the start (profiles already staged are recognised)");
    // Pages 3 to 5, then the whole listing again: its first 5 pages recognised.
    expect(again.stdout).toContain('Persons: 1,300 updates read, 800 new, 500 already staged, 0 rejected');
    const engage = standin.requests.filter((r) => r.path === '/api/query/engage');
    expect(engage[3]!.query).toMatchObject({ session_id: engage[1]!.query.session_id, page: '2' });
    const store = StagingStore.open(target.staging);
    try {
      const pages = rangesOf(store, `mixpanel-api:${PROJECT}#persons`);
      // Ten full pages, then an empty one: only a page shorter than page_size ends the listing.
      const page = (listing: number, i: number) => `L00${listing}-P${String(i).padStart(6, '0')}`;
      const listing1 = Array.from({ length: 5 }, (_, i) => [page(1, i), 'done', 100]);
      const listing2 = Array.from({ length: 10 }, (_, i) => [page(2, i), 'done', i < 5 ? 0 : 100]);
      const expected = [...listing1, ...listing2, [page(2, 10), 'empty', 0]];
      expect(pages.map((r) => [r.start, r.status, r.rowsStaged])).toEqual(expected);
    } finally {
      store.close();
    }
  });
});
