/** Events in columns: what goes in comes out, across growth and any text. */
import { describe, expect, it } from 'vitest';
import { uuidBytes, uuidText } from '../../src/events/stable-uuid.js';
import { EventKind, type StagedEvent } from '../../src/events/staged-event.js';
import { batchTransferList, EventBatchBuilder, eventAt } from '../../src/staging/event-batch.js';

function event(i: number): StagedEvent {
  return {
    uuid: uuidBytes(`01900000-0000-7000-8000-${i.toString(16).padStart(12, '0')}`),
    kind: i % 7 === 0 ? EventKind.person : EventKind.event,
    event: ['$pageview', 'signed_up', 'café ☕', ''][i % 4]!,
    distinctId: i % 5 === 0 ? `ü-${i}-😀` : `user_${i}`,
    timestampMs: 1_700_000_000_000 + i * 1000 + 0.5 * (i % 2),
    propertiesJson: JSON.stringify({ i, text: 'x'.repeat(i % 300), quote: '"\\\n', zh: '中文' }),
  };
}

describe('EventBatchBuilder', () => {
  it('gives back every event as it was added, past its first capacity', () => {
    const builder = new EventBatchBuilder();
    const events = Array.from({ length: 5000 }, (_, i) => event(i));
    events.forEach((e, i) => builder.add(i + 2, e));
    const batch = builder.finish();
    expect(batch.count).toBe(5000);
    expect([...batch.names].sort()).toEqual(['', '$pageview', 'café ☕', 'signed_up'].sort());
    for (const i of [0, 1, 4, 1023, 1024, 4999]) {
      const back = eventAt(batch, i);
      expect({ ...back, uuid: uuidText(back.uuid) }).toEqual({ ...events[i], uuid: uuidText(events[i]!.uuid) });
      expect(batch.lines[i]).toBe(i + 2);
    }
  });

  it('lists buffers that may be transferred, none shared with another batch', () => {
    const a = new EventBatchBuilder();
    a.add(2, event(1));
    const b = new EventBatchBuilder();
    b.add(2, event(2));
    const buffers = [...batchTransferList(a.finish()), ...batchTransferList(b.finish())];
    expect(new Set(buffers).size).toBe(buffers.length);
  });
});
