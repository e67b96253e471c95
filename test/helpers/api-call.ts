/**
 * Plain HTTP calls to a sandbox's API with a seeded key (by label) or none, through the
 * project's own HTTP client: status, headers, text and parsed JSON.
 */
import { createHttpClient, type HttpClient, type HttpRequest } from '../../src/http/http-client.js';

export interface ApiReply {
  status: number;
  headers: Record<string, string>;
  text: string;
  json<T = Record<string, unknown>>(): T;
}

export interface ApiCall {
  (method: HttpRequest['method'], path: string, key: string | null, body?: unknown): Promise<ApiReply>;
  close(): Promise<void>;
}

/** `keyOf` turns a label into a key value; `baseUrl` is read on each call, so it may change. */
export function apiCaller(baseUrl: () => string, keyOf: (label: string) => string, http: HttpClient = createHttpClient({ connections: 4 })): ApiCall {
  const call = async (method: HttpRequest['method'], path: string, key: string | null, body?: unknown): Promise<ApiReply> => {
    const headers: Record<string, string> = key === null ? {} : { authorization: `Bearer ${keyOf(key)}` };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const outcome = await http.send({ method, url: `${baseUrl()}${path}`, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
    if (outcome.type !== 'response') throw new Error(`no response: ${outcome.type}`);
    const text = outcome.body.toString();
    return { status: outcome.status, headers: outcome.headers, text, json: <T>() => JSON.parse(text) as T };
  };
  return Object.assign(call, { close: () => http.close() });
}
