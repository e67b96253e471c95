#!/usr/bin/env node
// The top entries of V8 CPU profiles (`node --cpu-prof --cpu-prof-dir=DIR ...` writes one per
// thread): self time per function, and the share of each thread's samples. How the notes in
// BENCHMARKS.md were made.
// Usage: node bench/profile-top.mjs <file.cpuprofile | dir> [entries=25]
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, join, relative } from 'node:path';

const [target, entriesArg] = process.argv.slice(2);
if (!target) {
  console.error('usage: node bench/profile-top.mjs <file.cpuprofile | dir> [entries]');
  process.exit(2);
}
const entries = Number(entriesArg ?? 25);
const files = statSync(target).isDirectory()
  ? readdirSync(target)
      .filter((f) => f.endsWith('.cpuprofile'))
      .sort()
      .map((f) => join(target, f))
  : [target];

/** @param {{ functionName: string, url: string, lineNumber: number }} frame */
function label(frame) {
  const name = frame.functionName || '(anonymous)';
  if (!frame.url) return name;
  const url = frame.url.replace(/^file:\/\//, '');
  const where = url.includes('/node_modules/') ? url.slice(url.lastIndexOf('/node_modules/') + 14) : url.startsWith('node:') ? url : relative(process.cwd(), url);
  return `${name} ${where}:${frame.lineNumber + 1}`;
}

for (const file of files) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const deltas = profile.timeDeltas;
  let totalUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const node = byId.get(profile.samples[i]);
    const us = deltas[i + 1] ?? 0;
    totalUs += us;
    const key = label(node.callFrame);
    self.set(key, (self.get(key) ?? 0) + us);
  }
  const idle = (self.get('(idle)') ?? 0) + (self.get('(program)') ?? 0) * 0;
  console.log(`\n${basename(file)}: ${(totalUs / 1e6).toFixed(2)} s sampled, ${((totalUs - idle) / 1e6).toFixed(2)} s not idle`);
  const top = [...self].sort((a, b) => b[1] - a[1]).slice(0, entries);
  for (const [key, us] of top) console.log(`${(us / 1e6).toFixed(2).padStart(7)} s ${((us / totalUs) * 100).toFixed(1).padStart(5)}%  ${key}`);
}
