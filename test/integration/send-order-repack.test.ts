/**
 * Repacking property blocks in send order (src/staging/send-order-repack.ts) on real staging
 * files: a source in no time order is repacked before import, every row's properties unchanged;
 * an ordered one is not; a run stopped between the repack's transactions leaves a file that
 * reads, and the next run finishes it.
 */
import { copyFileSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { uuidText } from '../../src/events/stable-uuid.js';
import { bindProject } from '../../src/staging/delivery-store.js';
import { refBlockId } from '../../src/staging/property-block-codec.js';
import { propertiesTextSql } from '../../src/staging/property-blocks.js';
import { repackInSendOrder, sendOrderReads } from '../../src/staging/send-order-repack.js';
import { stepsBack } from '../../src/staging/steps-back.js';
import { StagingStore } from '../../src/staging/staging-store.js';
import { seededRandom } from '../../src/util/seeded-random.js';
import { runCli } from '../helpers/run-cli.js';
import { asIngested, storedEvents, useSandbox, writeSandboxConfig } from '../helpers/sandbox.js';
import { FAST } from '../helpers/staging.js';
import { useTempDir } from '../helpers/temp-dir.js';

const ROWS = 3000;
/** The repack's view of import's cache: 2 of the test's 12 blocks (import's holds at least 32). */
const SMALL = { cacheBlocks: 2 };
/** A project with nothing delivered: every row is pending for it. */
const PROJECT = 999;

/** A CSV of ROWS events, each with its own timestamp and properties; shuffled or in time order. */
function writeCsv(file: string, shuffled: boolean, count: number): void {
  const random = seededRandom(7);
  const rows = Array.from({ length: count }, (_, i) => {
    const time = new Date(Date.UTC(2025, 8, 1) + i * 61_000).toISOString();
    return `page_viewed,user_${i % 97},${time},https://shop.example.com/p/${i},${['Chrome', 'Safari', 'Firefox'][i % 3]},${'note '.repeat(i % 40)}${i}`;
  });
  if (shuffled) {
    for (let i = rows.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [rows[i], rows[j]] = [rows[j]!, rows[i]!];
    }
  }
  writeFileSync(file, ['event,distinct_id,timestamp,$current_url,$browser,comment', ...rows].join('\n'));
}

async function stage(dir: string, shuffled: boolean, count = ROWS): Promise<string> {
  const csv = join(dir, shuffled ? 'shuffled.csv' : 'ordered.csv');
  writeCsv(csv, shuffled, count);
  const staging = join(dir, shuffled ? 'shuffled.db' : 'ordered.db');
  const result = await runCli(['export-source', '--from', 'csv', csv, '--staging', staging, '--quiet'], { cwd: dir });
  expect(result.code, result.stderr).toBe(0);
  return staging;
}

/** Each row's uuid and properties' JSON text, by seq. */
function texts(store: StagingStore): Map<number, string> {
  const rows = store.db
    .prepare(`SELECT seq, ${propertiesTextSql('properties')} AS p FROM events`)
    .raw(true)
    .all() as Array<[number, string]>;
  return new Map(rows);
}

/** Blocks no row names, and rows naming a block that is not there. */
function blockIntegrity(store: StagingStore): { unnamed: number; missing: number } {
  const named = new Set((store.db.prepare('SELECT properties FROM events').pluck().all() as unknown[]).map(refBlockId).filter((id) => id !== undefined));
  const stored = new Set(store.db.prepare('SELECT id FROM property_blocks').pluck().all() as number[]);
  return { unnamed: [...stored].filter((id) => !named.has(id)).length, missing: [...named].filter((id) => !stored.has(id)).length };
}

describe('repacking property blocks in send order', () => {
  const tempDir = useTempDir();
  const sandboxAt = useSandbox();

  it('repacks a shuffled source once, every row unchanged, and leaves an ordered one alone', async () => {
    const dir = tempDir();
    const staging = await stage(dir, true);
    const store = StagingStore.open(staging);
    const before = texts(store);
    expect(before.size).toBe(ROWS);
    expect(stepsBack(store.db)).toBeGreaterThan(ROWS / 4);
    const reads = sendOrderReads(store.db, PROJECT, 2);
    expect(reads.rows).toBe(ROWS);
    // Shuffled: nearly every row read in send order comes from another block.
    expect(reads.unpacks).toBeGreaterThan(ROWS / 2);

    const result = repackInSendOrder(store, PROJECT, SMALL);
    expect(result.repacked).toBe(ROWS);
    const after = sendOrderReads(store.db, PROJECT, 2);
    expect(after.unpacks).toBe(after.blocks);
    expect(after.blocks).toBeLessThanOrEqual(Math.ceil(ROWS / 256) + 1);
    expect(texts(store)).toEqual(before);
    expect(blockIntegrity(store)).toEqual({ unnamed: 0, missing: 0 });
    expect(existsSync(`${staging}-repack`)).toBe(false);
    // Once in send order, nothing more to do.
    expect(repackInSendOrder(store, PROJECT, SMALL).repacked).toBe(0);
    store.close();

    const ordered = StagingStore.open(await stage(dir, false));
    const orderedReads = sendOrderReads(ordered.db, PROJECT, 2);
    expect(orderedReads.unpacks).toBe(orderedReads.blocks);
    // Rows in time order are seen so by one sequential scan, without walking the send order.
    expect(stepsBack(ordered.db)).toBe(0);
    expect(repackInSendOrder(ordered, PROJECT, { ...SMALL, starting: () => expect.fail('an ordered source was repacked') }).repacked).toBe(0);
    ordered.close();
  });

  it.each(['copied', 'packed', 'pointed'] as const)('a run stopped after a step (%s) leaves a file that reads, and the next run finishes', async (step) => {
    const dir = tempDir();
    const staged = await stage(dir, true);
    const staging = join(dir, `${step}.db`);
    copyFileSync(staged, staging);
    let store = StagingStore.open(staging);
    const before = texts(store);
    let steps = 0;
    const stop = (at: string): void => {
      // The second step of its kind: some rows done, some not.
      if (at === step && (step === 'copied' || ++steps === 2)) throw new Error('killed');
    };
    expect(() => repackInSendOrder(store, PROJECT, { ...SMALL, stepRows: 500, afterStep: stop })).toThrow('killed');
    store.close();

    store = StagingStore.open(staging);
    expect(texts(store)).toEqual(before);
    expect(blockIntegrity(store).missing).toBe(0);
    expect(repackInSendOrder(store, PROJECT, { ...SMALL, stepRows: 500 }).repacked).toBe(ROWS);
    expect(texts(store)).toEqual(before);
    expect(blockIntegrity(store)).toEqual({ unnamed: 0, missing: 0 });
    const after = sendOrderReads(store.db, PROJECT, 2);
    expect(after.unpacks).toBe(after.blocks);
    store.close();
  });

  it('leaves the rows already delivered to the project in their blocks, and stops between steps when aborted', async () => {
    const dir = tempDir();
    const store = StagingStore.open(await stage(dir, true));
    const before = texts(store);
    const project = bindProject(store, { name: 'prod', role: 'production', host: 'http://127.0.0.1:1' });
    const delivered = store.db.prepare('INSERT INTO deliveries (project_id, seq) SELECT ?, seq FROM events ORDER BY seq LIMIT 1000').run(project.id).changes;
    const refsOfDelivered = store.db.prepare('SELECT properties FROM events ORDER BY seq LIMIT 1000').pluck().all();

    const abort = new AbortController();
    const stopped = repackInSendOrder(store, project.id, { ...SMALL, stepRows: 500, signal: abort.signal, afterStep: (at) => at === 'packed' && abort.abort() });
    expect(stopped.repacked).toBe(0);
    expect(texts(store)).toEqual(before);
    expect(blockIntegrity(store).missing).toBe(0);

    expect(repackInSendOrder(store, project.id, SMALL).repacked).toBe(ROWS - delivered);
    expect(texts(store)).toEqual(before);
    expect(store.db.prepare('SELECT properties FROM events ORDER BY seq LIMIT 1000').pluck().all()).toEqual(refsOfDelivered);
    expect(blockIntegrity(store)).toEqual({ unnamed: 0, missing: 0 });
    const after = sendOrderReads(store.db, project.id, 2);
    expect(after.rows).toBe(ROWS - delivered);
    expect(after.unpacks).toBe(after.blocks);
    store.close();
  });

  it('import of a shuffled source repacks it first and delivers every event once, every value equal', async () => {
    const dir = tempDir();
    // More blocks than import's cache is taken to hold (32).
    const rows = 9000;
    const staging = await stage(dir, true, rows);
    const store = StagingStore.open(staging);
    const staged = new Map(
      (
        store.db
          .prepare(`SELECT uuid, ${propertiesTextSql('properties')} AS p FROM events`)
          .raw(true)
          .all() as Array<[Buffer, string]>
      ).map(([uuid, p]) => [uuidText(uuid), p]),
    );
    store.close();
    const sandbox = await sandboxAt();
    const config = writeSandboxConfig(dir, sandbox);
    const result = await runCli(['import', '--project', 'test', '--staging', staging, '--config', config, '--chunk-events', '200', ...FAST.filter((a) => a !== '--quiet')], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/not in time order .*repacking them in send order/);
    const stored = storedEvents(sandbox, 1);
    expect(stored).toHaveLength(rows);
    expect(new Set(stored.map((e) => e.uuid)).size).toBe(rows);
    for (const e of stored) expect(JSON.parse(e.properties)).toEqual(asIngested(JSON.parse(staged.get(e.uuid)!)));
  });
});
