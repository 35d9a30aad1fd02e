// A real S3-protocol server (s3rver) on a free loopback port, with its own temp folder and one empty bucket,
// for tests of the S3 object store and of anything that publishes through it.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { startTestService, type TestService } from './service.js';

// s3rver is CommonJS and ships no types; only what is used here is declared.
interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  httpServer?: Server;
}
type S3rverCtor = new (options: Record<string, unknown>) => S3rverInstance;
const S3rver = createRequire(import.meta.url)('s3rver') as S3rverCtor;

/** s3rver's built-in account: it checks request signatures against these. */
const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const S3RVER_REGION = 'us-east-1';

export interface TestS3 {
  /** `http://127.0.0.1:<port>`: use with forcePathStyle. */
  endpoint: string;
  bucket: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** The environment a service process needs to use this bucket (OBJECT_STORE with `prefix`, S3_*, AWS_*). */
  env(prefix?: string): Record<string, string>;
  /** A client for this server (the caller destroys it). */
  client(): S3Client;
  close(): Promise<void>;
}

export async function startS3rver(bucket = 'glossa-test'): Promise<TestS3> {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'glossa-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const client = () =>
    new S3Client({ endpoint, region: S3RVER_REGION, forcePathStyle: true, credentials: S3RVER_CREDENTIALS });
  const admin = client();
  try {
    await admin.send(new CreateBucketCommand({ Bucket: bucket }));
  } finally {
    admin.destroy();
  }
  return {
    endpoint,
    bucket,
    region: S3RVER_REGION,
    credentials: S3RVER_CREDENTIALS,
    env: (prefix = '') => ({
      OBJECT_STORE: `s3://${bucket}${prefix ? `/${prefix}` : ''}`,
      S3_ENDPOINT: endpoint,
      S3_REGION: S3RVER_REGION,
      S3_FORCE_PATH_STYLE: 'true',
      AWS_ACCESS_KEY_ID: S3RVER_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3RVER_CREDENTIALS.secretAccessKey,
    }),
    client,
    async close() {
      // Clients keep sockets alive; without this, close waits for their idle timeout.
      server.httpServer?.closeAllConnections();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/**
 * A test service whose object store is a fresh s3rver bucket under `prefix`. The SDK's credential chain reads
 * AWS_* from the process environment, so they are set for the run and restored after it.
 */
export async function withS3Service(
  prefix: string,
  fn: (svc: TestService, s3: TestS3) => Promise<void>,
): Promise<void> {
  const s3 = await startS3rver();
  const env = s3.env(prefix);
  const saved = {
    AWS_ACCESS_KEY_ID: process.env.AWS_ACCESS_KEY_ID,
    AWS_SECRET_ACCESS_KEY: process.env.AWS_SECRET_ACCESS_KEY,
  };
  process.env.AWS_ACCESS_KEY_ID = env.AWS_ACCESS_KEY_ID;
  process.env.AWS_SECRET_ACCESS_KEY = env.AWS_SECRET_ACCESS_KEY;
  try {
    const svc = await startTestService(env);
    try {
      await fn(svc, s3);
    } finally {
      await svc.stop();
    }
  } finally {
    await s3.close();
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}
