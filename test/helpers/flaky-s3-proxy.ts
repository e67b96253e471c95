/**
 * A loopback proxy in front of moto that misbehaves as S3 does under load: it answers
 * `503 SlowDown` to the first requests, and can cut an object's body part-way (a dropped
 * connection), and can page listings without continuation tokens, or in pages of a given size.
 * Everything else is passed through unchanged (moto does not check signatures, so a page size
 * added to a listing's query is taken).
 */
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FlakyProxyOptions {
  /** Requests answered 503 SlowDown before any is passed on. */
  slowDowns: number;
  /** Cut the body of the first whole-object GET (no Range) whose key ends so, after this many bytes. */
  cut?: { keySuffix: string; afterBytes: number };
  /**
   * Listings (ListObjectsV2) in pages of at most this many keys, each page but the last marked
   * truncated without a continuation token, as some S3-compatible stores answer.
   */
  tokenlessPages?: number;
  /**
   * Ask for listing pages of this many keys (ListObjectsV2's max-keys) instead of S3's 1,000, so a
   * few dozen objects span several pages: the pages and continuation tokens are still moto's own.
   * The query then differs from what the client signed; moto does not check signatures.
   */
  listPageKeys?: number;
}

/** `path` with max-keys set when it is a ListObjectsV2 request (`?list-type=2`) and a page size is asked for. */
function withPageKeys(path: string, listPageKeys: number | undefined): string {
  if (listPageKeys === undefined) return path;
  const url = new URL(path, 'http://proxy');
  if (url.searchParams.get('list-type') !== '2') return path;
  url.searchParams.set('max-keys', String(listPageKeys));
  return url.pathname + url.search;
}

export interface FlakyProxy {
  url: string;
  /** Every request seen: method, path, Range and If-Match headers. */
  seen: Array<{ method: string; url: string; range: string | undefined; ifMatch: string | undefined }>;
  close(): Promise<void>;
}

const SLOW_DOWN = '<?xml version="1.0" encoding="UTF-8"?><Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message></Error>';

export async function startFlakyProxy(target: string, options: FlakyProxyOptions): Promise<FlakyProxy> {
  const upstream = new URL(target);
  const seen: FlakyProxy['seen'] = [];
  let slowDowns = options.slowDowns;
  let cut = options.cut;
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const range = req.headers.range;
    seen.push({ method: req.method ?? '', url: req.url ?? '', range, ifMatch: req.headers['if-match'] });
    if (slowDowns > 0) {
      slowDowns--;
      res.writeHead(503, { 'content-type': 'application/xml' }).end(SLOW_DOWN);
      return;
    }
    const cutThis = cut !== undefined && req.method === 'GET' && range === undefined && (req.url ?? '').split('?')[0]!.endsWith(cut.keySuffix) ? cut : undefined;
    if (cutThis !== undefined) cut = undefined;
    const listing = options.tokenlessPages !== undefined && req.method === 'GET' && /[?&]list-type=2/.test(req.url ?? '');
    const path = listing ? `${req.url}&max-keys=${options.tokenlessPages}` : withPageKeys(req.url ?? '/', options.listPageKeys);
    const forward = request({ host: upstream.hostname, port: upstream.port, method: req.method, path, headers: req.headers }, (answer) => {
      if (listing) {
        withoutToken(answer, res);
        return;
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      let sent = 0;
      answer.on('data', (chunk: Buffer) => {
        if (cutThis !== undefined && sent + chunk.length >= cutThis.afterBytes) {
          // The bytes before the cut reach the client before the connection drops.
          res.write(chunk.subarray(0, cutThis.afterBytes - sent));
          res.socket?.end();
          answer.destroy();
          return;
        }
        sent += chunk.length;
        res.write(chunk);
      });
      answer.on('end', () => res.end());
    });
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  };
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A listing page passed on without its continuation token (IsTruncated kept). */
function withoutToken(answer: IncomingMessage, res: ServerResponse): void {
  const chunks: Buffer[] = [];
  answer.on('data', (chunk: Buffer) => chunks.push(chunk));
  answer.on('end', () => {
    const body = Buffer.concat(chunks)
      .toString('utf8')
      .replace(/<NextContinuationToken>[^<]*<\/NextContinuationToken>/, '');
    const { 'content-length': _length, ...headers } = answer.headers;
    res.writeHead(answer.statusCode ?? 502, headers).end(body);
  });
}

/** `run` given a proxy's address, the proxy closed however it ends; with every request it saw. */
export async function throughProxy<T>(target: string, options: FlakyProxyOptions, run: (url: string) => Promise<T>): Promise<{ value: T; seen: FlakyProxy['seen'] }> {
  const proxy = await startFlakyProxy(target, options);
  try {
    return { value: await run(proxy.url), seen: proxy.seen };
  } finally {
    await proxy.close();
  }
}
