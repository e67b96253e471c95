/**
 * Mixpanel's Engage API (`POST /api/query/engage`), as its public reference documents it, for
 * the Mixpanel stand-in of the tests and `npm run demo`: a form body with `project_id`,
 * `data_group_id` for one group key's group profiles, and `session_id` with `page` for each page after the first. The first answer
 * opens a session over the profiles as they are then; pages hold `page_size` profiles, a
 * shorter one is the last. The Query API's hourly limit is kept on the stand-in's clock (60
 * queries an hour; 429 beyond). A session can be ended, as Mixpanel ends them after a while;
 * what Mixpanel answers then is not documented, so the stand-in answers 400 with an error.
 */
import { createServer } from 'node:http';

const HOUR_MS = 3_600_000;

/** An answer as the stand-ins send it: status, headers, body. */
export function jsonAnswer(status, value) {
  return { status, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify(value)) };
}

/**
 * The Engage API over `options.users` and `options.groups` (profiles by data_group_id): its form
 * handler, a way to end every open session, and the pages served (`<data_group_id or users>:<page>`).
 */
export function engageStandin(options) {
  const pageSize = options.pageSize ?? 1000;
  const now = options.nowMs ?? Date.now;
  const sessions = new Map();
  const queries = [];
  const pagesServed = [];
  let opened = 0;
  const request = '/api/query/engage';
  const answer = (form) => {
    if (form.project_id !== options.projectId) return jsonAnswer(403, { request, error: `service account has no access to project ${form.project_id}` });
    const at = now();
    while (queries.length > 0 && queries[0] <= at - HOUR_MS) queries.shift();
    if (queries.length >= 60) return jsonAnswer(429, { request, error: 'Query rate limit exceeded: 60 queries per hour' });
    queries.push(at);
    const group = form.data_group_id;
    let list;
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

/**
 * A small Mixpanel on 127.0.0.1 for `npm run demo`: the raw export (`GET /api/2.0/export`, the
 * given events as JSON lines, whatever the day) and the Engage API above, behind Basic
 * credentials. The tests use test/helpers/mixpanel-api-standin.ts, which also takes faults.
 */
export async function startMixpanelDemo({ projectId, username, secret, events, users, groups }) {
  const auth = `Basic ${Buffer.from(`${username}:${secret}`).toString('base64')}`;
  const engage = engageStandin({ projectId, users, groups });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const send = ({ status, headers, body }) => res.writeHead(status, { ...headers, 'content-length': String(body.length) }).end(body);
      if (req.headers.authorization !== auth) return send(jsonAnswer(401, { error: 'Invalid service account credentials' }));
      if (req.method === 'POST' && url.pathname === engage.form.path) return send(engage.form.answer(Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')))));
      if (url.pathname !== '/api/2.0/export') return send({ status: 404, headers: { 'content-type': 'text/plain' }, body: Buffer.from('Not Found') });
      const day = url.searchParams.get('from_date');
      const lines = events.filter((e) => new Date(e.properties.time).toISOString().slice(0, 10) === day).map((e) => `${JSON.stringify(e)}\n`);
      send({ status: 200, headers: { 'content-type': 'text/plain' }, body: Buffer.from(lines.join('')) });
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}
