#!/usr/bin/env node
// The peer: what a user would write with posthog-node to move the same CSV. Reads the file with
// csv-parse and sends every row with `capture` (historicalMigration: true), then shuts down;
// rows that cannot be events (no name, a bad time, properties that are not JSON) are left out.
// Prints one JSON line: events captured, rows left out, events flushed, bytes and requests sent, errors.
// Usage: node bench/peer-posthog-node.mjs <file.csv> <events> <host> <project api key> [batch]
//
// Batching is posthog-node's own (flushAt 20, maxBatchSize 100), as a user writing this script
// gets it; the optional `batch` sets both instead (1000 roughly doubles its rate here).
//
// posthog-node keeps at most maxQueueSize events and drops the oldest when more arrive, and it
// sends one batch at a time. So the loop awaits a flush every FLUSH_EVERY captures: the queue
// stays far below its bound while background flushes (every flushAt events) overlap the reading.
import { createReadStream } from 'node:fs';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { parse } from 'csv-parse';
import { PostHog } from 'posthog-node';

const FLUSH_EVERY = 10_000;

const [file, eventsArg, host, apiKey, batchArg] = process.argv.slice(2);
const batch = batchArg === undefined ? {} : { flushAt: Number(batchArg), maxBatchSize: Number(batchArg) };
const limit = Number(eventsArg);
if (!file || !(limit > 0) || !host || !apiKey) {
  console.error('usage: node bench/peer-posthog-node.mjs <file.csv> <events> <host> <project api key>');
  process.exit(2);
}

let bytesSent = 0;
let requests = 0;
/** @param {unknown} body */
function bodyBytes(body) {
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (body instanceof Blob) return body.size;
  if (body instanceof ArrayBuffer || ArrayBuffer.isView(body)) return body.byteLength;
  return 0;
}

const client = new PostHog(apiKey, {
  host,
  historicalMigration: true,
  ...batch,
  // Far above what is ever queued (a flush is awaited every FLUSH_EVERY captures): nothing is dropped.
  maxQueueSize: 10 * FLUSH_EVERY,
  flushInterval: 0,
  // Counts what goes on the wire; the request itself is the global fetch's, as by default.
  fetch: (url, options) => {
    if (!url.startsWith(`${host}/`)) throw new Error(`posthog-node asked for ${url}; the bench contacts only ${host}`);
    requests++;
    bytesSent += bodyBytes(options.body);
    return fetch(url, /** @type {RequestInit} */ (options));
  },
});
let flushed = 0;
/** @type {string[]} */
const errors = [];
client.on('flush', (messages) => (flushed += messages.length));
client.on('error', (error) => errors.push(String(error?.message ?? error)));

/**
 * The row's properties, or undefined for a row a careful script leaves out (as migrate rejects
 * it): no event or distinct_id, a time that is not one, properties that are not JSON.
 * @param {Record<string, string>} row
 */
function propertiesOf(row) {
  const { event, distinct_id: distinctId, timestamp, properties: json, ...columns } = row;
  if (!event || !distinctId || Number.isNaN(Date.parse(timestamp ?? ''))) return undefined;
  try {
    return { ...columns, ...JSON.parse(json || '{}') };
  } catch {
    return undefined;
  }
}

let captured = 0;
let left = 0;
const parser = createReadStream(file).pipe(parse({ columns: true, to: limit }));
for await (const row of parser) {
  const properties = propertiesOf(row);
  if (properties === undefined) {
    left++;
    continue;
  }
  client.capture({ event: row.event, distinctId: row.distinct_id, timestamp: new Date(row.timestamp), properties });
  captured++;
  if (captured % FLUSH_EVERY === 0) {
    // capture() enqueues after a few promise turns; let them land, then wait for the queue.
    await nextTurn();
    await client.flush();
  }
}
await client.shutdown(600_000);
console.log(JSON.stringify({ events: captured, left, flushed, bytesSent, requests, errors: errors.slice(0, 5), errorCount: errors.length }));
process.exitCode = errors.length > 0 || flushed !== captured ? 1 : 0;
