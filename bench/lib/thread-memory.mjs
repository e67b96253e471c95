// Preloaded with NODE_OPTIONS="--import ./bench/lib/thread-memory.mjs" (THREAD_MEMORY_FILE=path):
// each thread of the process, worker threads included, appends once a second its heap's used
// and total sizes, its old generation and its buffers outside the heap (JSON lines).
import { appendFileSync } from 'node:fs';
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8';
import { isMainThread, threadId } from 'node:worker_threads';

const file = process.env.THREAD_MEMORY_FILE;
if (file) {
  const started = Date.now();
  const mb = (n) => Math.round(n / 1e5) / 10;
  const timer = setInterval(() => {
    const h = getHeapStatistics();
    const old = getHeapSpaceStatistics().find((s) => s.space_name === 'old_space');
    const u = process.memoryUsage();
    const line = {
      t: (Date.now() - started) / 1000,
      thread: isMainThread ? 'main' : threadId,
      used: mb(h.used_heap_size),
      total: mb(h.total_heap_size),
      old: mb(old?.space_used_size ?? 0),
      external: mb(u.external),
      buffers: mb(u.arrayBuffers),
      malloced: mb(h.malloced_memory),
      rss: isMainThread ? mb(u.rss) : undefined,
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  }, 1000);
  timer.unref();
}
