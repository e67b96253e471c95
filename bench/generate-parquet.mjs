// The PostHog batch-export shape in Parquet (zstd, as PostHog writes it), written by DuckDB from
// a fixed recipe: uuid, event, properties (JSON text), distinct_id, timestamp (µs, UTC),
// created_at, _inserted_at, elements_chain, person_id, person_properties. Every row stages.
import { DuckDBInstance } from '@duckdb/node-api';

/** Writes `total` rows to `out`; returns what staging must make of them. @param {string} out @param {number} total */
export async function generateParquet(out, total) {
  const db = await DuckDBInstance.create(':memory:');
  const c = await db.connect();
  const uuid = (seed) => `substr(md5(${seed}),1,8)||'-'||substr(md5(${seed}),9,4)||'-4'||substr(md5(${seed}),14,3)||'-8'||substr(md5(${seed}),18,3)||'-'||substr(md5(${seed}),21,12)`;
  await c.run(`COPY (SELECT ${uuid("'e' || i")} AS uuid,
      (['$pageview', '$autocapture', 'signed_up', 'purchase', 'search'])[1 + i % 5] AS event,
      '{"$current_url": "https://example.com/docs/' || (i % 997) || '?utm_source=news", "$browser": "' || (['Chrome', 'Firefox', 'Safari'])[1 + i % 3] ||
        '", "$screen_width": ' || (1280 + i % 640) || ', "plan": {"tier": "pro", "seats": ' || (i % 50) || ', "tags": ["a", "é", "🚀"]}, "big": ' || (9007199254740993 + i % 7) ||
        ', "$session_id": "' || ${uuid("'s' || (i // 40)")} || '"}' AS properties,
      'user_' || (i % 50000) AS distinct_id,
      TIMESTAMPTZ '2024-01-01 00:00:00+00' + to_microseconds((i * 25920000000 // ${total})::BIGINT) AS timestamp,
      TIMESTAMPTZ '2024-11-01 00:00:00+00' AS created_at, TIMESTAMPTZ '2024-11-01 00:00:00+00' AS _inserted_at,
      CASE WHEN i % 5 = 1 THEN 'button.btn.primary:nth-child="2"nth-of-type="1"text="Sign up";div.hero:nth-child="1"' ELSE '' END AS elements_chain,
      ${uuid("'p' || (i % 50000)")} AS person_id, '{"email": "user' || (i % 50000) || '@example.com"}' AS person_properties
    FROM range(${total}) t(i)) TO '${out.replaceAll("'", "''")}' (FORMAT parquet, COMPRESSION zstd)`);
  c.closeSync?.();
  return { staged: total, rejected: 0, skipped: 0, duplicates: 0 };
}
