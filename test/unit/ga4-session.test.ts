import { describe, expect, it } from 'vitest';
import { isUuidV7 } from '../../src/events/derived-uuids.js';
import { ga4SessionId, ga4SessionStartMs } from '../../src/sources/vendors/ga4-session.js';
import { mapGa4 } from '../../src/sources/vendors/ga4.js';
import { amplitudeSessionId } from '../../src/sources/vendors/amplitude-session.js';
import { computedSessionId } from '../../src/passes/sessionize.js';

/** The time a UUIDv7 holds: its first 48 bits, in ms. */
function v7TimeMs(uuid: string): number {
  return Number.parseInt(uuid.replaceAll('-', '').slice(0, 12), 16);
}

const USER = '539614342.1754092800';
const START = 1756718000;

describe('GA4 sessions: $session_id from user_pseudo_id and ga_session_id', () => {
  it('is a UUIDv7 whose time is the session start', () => {
    const id = ga4SessionId(USER, START)!;
    expect(isUuidV7(id)).toBe(true);
    expect(v7TimeMs(id)).toBe(START * 1000);
  });

  it('is the same for the same inputs, in any file or run, the number as digits or not', () => {
    const id = ga4SessionId(USER, START);
    expect(ga4SessionId(USER, START, new Map())).toBe(id);
    expect(ga4SessionId(USER, String(START))).toBe(id);
    expect(ga4SessionId(USER, BigInt(START))).toBe(id);
  });

  it.each<[string, unknown, unknown]>([
    ['another user, the same start', '111.222', START],
    ['the same user, another session', USER, START + 1],
  ])('differs for %s', (_name, user, session) => {
    expect(ga4SessionId(user, session)).not.toBe(ga4SessionId(USER, START));
  });

  it('is not the id Amplitude or --sessionize would give the same device and start', () => {
    const id = ga4SessionId(USER, START);
    expect(amplitudeSessionId({ session_id: START * 1000, device_id: USER })).not.toBe(id);
    expect(computedSessionId(USER, START * 1000)).not.toBe(id);
  });

  it.each<[string, unknown, unknown]>([
    ['no user_pseudo_id', null, START],
    ['an empty user_pseudo_id', '', START],
    ['no ga_session_id', USER, undefined],
    ['a ga_session_id of 0', USER, 0],
    ['a negative ga_session_id', USER, -5],
    ['a fractional ga_session_id', USER, 1756718000.5],
    ['a ga_session_id that is text', USER, 'abc'],
    ['a ga_session_id beyond what a UUIDv7 holds', USER, 2 ** 48],
  ])('is none with %s', (_name, user, session) => {
    expect(ga4SessionId(user, session)).toBeUndefined();
  });

  it('reads the start in seconds', () => {
    expect(ga4SessionStartMs(1756718000)).toBe(1756718000000);
    expect(ga4SessionStartMs(' 1756718000 ')).toBe(1756718000000);
  });

  it('is given to every event of the session, and to none without ga_session_id', () => {
    const event = (params: unknown[], timestamp: string, user = USER): Record<string, unknown> => ({
      event_name: 'page_view',
      event_timestamp: timestamp,
      user_pseudo_id: user,
      event_params: params,
    });
    const session = { key: 'ga_session_id', value: { int_value: String(START) } };
    const properties = (record: Record<string, unknown>): Record<string, unknown> => {
      const candidate = mapGa4(record);
      if ('reason' in candidate) throw new Error(candidate.message);
      return candidate.properties;
    };
    const first = properties(event([session], '1756718002000000'));
    const later = properties(event([session], '1756719000000000'));
    expect(first.$session_id).toBe(ga4SessionId(USER, START));
    expect(later.$session_id).toBe(first.$session_id);
    expect(first.$ga_session_id).toBe(START);
    expect(properties(event([], '1756718002000000'))).not.toHaveProperty('$session_id');
  });
});
