/**
 * Mixpanel's Engage API (`POST /api/query/engage`), as its public reference documents it, for
 * the Mixpanel stand-in: a form body with `project_id`, `data_group_id` for one group key's
 * group profiles, and `session_id` with `page` for each page after the first. The first answer
 * opens a session over the profiles as they are then; pages hold `page_size` profiles, a
 * shorter one is the last. The Query API's limits are kept on the stand-in's clock (60 queries
 * an hour, 5 at once; 429 beyond). A session can be ended, as Mixpanel ends them after a while;
 * what Mixpanel answers then is not documented, so the stand-in answers 400 with an error.
 */
import { jsonAnswer, type RealAnswer } from './export-api-standin.js';

export interface MixpanelProfile {
  $distinct_id: string;
  $properties: Record<string, unknown>;
}

export interface EngageOptions {
  projectId: string;
  users: MixpanelProfile[];
  /** Group profiles by data_group_id. */
  groups?: Record<string, MixpanelProfile[]>;
  pageSize?: number;
  /** The stand-in's clock (the test's), for the hourly limit. */
  nowMs?: () => number;
  /** Called with the pages served so far, once a page's answer is made (a test ends a session or a run there). */
  onPage?: (served: readonly string[]) => void;
}

export interface EngageStandin {
  form: { path: string; key(form: Record<string, string>): string; answer(form: Record<string, string>): RealAnswer };
  /** Ends every open session: the next page asked of one is refused. */
  endSessions(): void;
  /** Pages answered, as `<data_group_id or users>:<page>`, in order. */
  pagesServed: string[];
}

const HOUR_MS = 3_600_000;

export function engageStandin(options: EngageOptions): EngageStandin {
  const pageSize = options.pageSize ?? 1000;
  const now = options.nowMs ?? Date.now;
  const sessions = new Map<string, MixpanelProfile[]>();
  const queries: number[] = [];
  const pagesServed: string[] = [];
  let opened = 0;
  const request = '/api/query/engage';
  const answer = (form: Record<string, string>): RealAnswer => {
    if (form.project_id !== options.projectId) return jsonAnswer(403, { request, error: `service account has no access to project ${form.project_id}` });
    const at = now();
    while (queries.length > 0 && queries[0]! <= at - HOUR_MS) queries.shift();
    if (queries.length >= 60) return jsonAnswer(429, { request, error: 'Query rate limit exceeded: 60 queries per hour' });
    queries.push(at);
    const group = form.data_group_id;
    let list: MixpanelProfile[] | undefined;
    let sessionId = form.session_id;
    if (sessionId === undefined) {
      if (form.page !== undefined && form.page !== '0') return jsonAnswer(400, { request, error: 'page requires session_id' });
      list = [...(group === undefined ? options.users : (options.groups?.[group] ?? []))];
      sessionId = `session-${++opened}`;
      sessions.set(sessionId, list);
    } else {
      list = sessions.get(sessionId);
      if (list === undefined) return jsonAnswer(400, { request, error: `session_id ${sessionId} is not valid (it may have expired)` });
    }
    const page = Number(form.page ?? '0');
    pagesServed.push(`${group ?? 'users'}:${page}`);
    const results = list.slice(page * pageSize, (page + 1) * pageSize);
    options.onPage?.(pagesServed);
    return jsonAnswer(200, { page, page_size: pageSize, session_id: sessionId, status: 'ok', total: list.length, computed_at: new Date(at).toISOString(), results });
  };
  return {
    form: { path: request, key: (form) => `engage:${form.data_group_id ?? 'users'}`, answer },
    endSessions: () => sessions.clear(),
    pagesServed,
  };
}
