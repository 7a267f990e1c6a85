// The facts about the machine and services that a result depends on, recorded with it.
import os from 'node:os';

import pg from 'pg';

import { ADMIN_URL, REDIS_URL } from './pg-admin.mjs';

async function postgresVersion() {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    const { rows } = await client.query('SHOW server_version');
    return rows[0].server_version;
  } finally {
    await client.end();
  }
}

async function redisVersion() {
  const { Redis } = await import('ioredis');
  // No retries: an absent Redis should be reported, not waited for.
  const client = new Redis(REDIS_URL, {
    lazyConnect: true,
    connectTimeout: 5000,
    maxRetriesPerRequest: 0,
    enableOfflineQueue: false,
    retryStrategy: () => null,
  });
  try {
    await client.connect();
    const info = await client.info('server');
    return /^redis_version:(\S+)/m.exec(info)?.[1] ?? 'unknown';
  } finally {
    client.disconnect();
  }
}

const unavailable = (error) => `unavailable (${error.message})`;

export async function machineFacts() {
  const cpus = os.cpus();
  return {
    date: new Date().toISOString(),
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cpuCount: cpus.length,
    totalMemoryBytes: os.totalmem(),
    platform: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    postgres: await postgresVersion().catch(unavailable),
    redis: await redisVersion().catch(unavailable),
  };
}
