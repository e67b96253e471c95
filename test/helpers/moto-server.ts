/**
 * moto's S3 server on a free loopback port, started for a test file and stopped after it: a
 * real S3 implementation (listing pages, ranged reads, ETags, If-Match) with nothing mocked.
 * Buckets and objects are made through the AWS SDK the code under test uses. moto comes from the
 * tests' own Python venv (python-venv.ts), nothing installed by hand.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll, beforeAll } from 'vitest';
import { createServer } from 'node:net';
import { CreateBucketCommand, DeleteObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { venvPython } from './python-env.js';

export interface MotoServer {
  /** http://127.0.0.1:<port> */
  endpointUrl: string;
  /** The environment a CLI run needs to reach it (endpoint, fake keys, region). */
  env: Record<string, string>;
  client: S3Client;
  createBucket(bucket: string): Promise<void>;
  put(bucket: string, key: string, body: Buffer | string): Promise<void>;
  remove(bucket: string, key: string): Promise<void>;
  stop(): Promise<void>;
}

/** A port nobody listens on now. */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function waitUntilUp(url: string, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`moto_server exited with ${child.exitCode}`);
    try {
      await fetch(`${url}/moto-api/`);
      return;
    } catch {
      // Polling a starting child process is the one wait here: there is no readiness signal.
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error('moto_server did not start within 30 s');
}

export const MOTO_KEYS = { accessKeyId: 'testing-access-key', secretAccessKey: 'testing-secret-key' };

export async function startMoto(): Promise<MotoServer> {
  const port = await freePort();
  const child = spawn(venvPython(), ['-m', 'moto.server', '-H', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  const endpointUrl = `http://127.0.0.1:${port}`;
  await waitUntilUp(endpointUrl, child);
  const client = new S3Client({ endpoint: endpointUrl, region: 'us-east-1', forcePathStyle: true, credentials: MOTO_KEYS });
  return {
    endpointUrl,
    env: { AWS_ENDPOINT_URL_S3: endpointUrl, AWS_ACCESS_KEY_ID: MOTO_KEYS.accessKeyId, AWS_SECRET_ACCESS_KEY: MOTO_KEYS.secretAccessKey, AWS_REGION: 'us-east-1' },
    client,
    createBucket: async (bucket) => {
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
    },
    put: async (bucket, key, body) => {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body }));
    },
    remove: async (bucket, key) => {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }));
    },
    stop: async () => {
      client.destroy();
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** moto started before the test file's tests and stopped after them: the server, once started. */
export function useMoto(): () => MotoServer {
  let moto: MotoServer | undefined;
  beforeAll(async () => {
    moto = await startMoto();
  }, 60_000);
  afterAll(async () => {
    await moto?.stop();
  });
  return () => moto!;
}
