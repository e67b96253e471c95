// The bytes of text a zip source holds: each entry as read (yauzl inflates it), and a gzipped
// entry (Amplitude's export: a zip of hourly .json.gz files) gunzipped too. The staging file is
// compared with this as well as with the zip, since its target is set against the JSON an
// export holds, not against how the export was compressed for download.
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import yauzl from 'yauzl';

/** @param {string} path a zip file */
export async function zipTextBytes(path) {
  const zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false });
  let total = 0;
  try {
    const entries = [];
    for await (const entry of zip.eachEntry()) if (!entry.fileName.endsWith('/')) entries.push(entry);
    for (const entry of entries) {
      const bytes = await zip.openReadStreamPromise(entry);
      const stages = entry.fileName.endsWith('.gz') ? [bytes, createGunzip()] : [bytes];
      await pipeline(...stages, async (/** @type {AsyncIterable<Buffer>} */ chunks) => {
        for await (const chunk of chunks) total += chunk.length;
      });
    }
  } finally {
    zip.close();
  }
  return total;
}
