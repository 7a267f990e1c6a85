// The WAL a pass wrote, by record type: `pg_waldump --stats=record` over the pass's range of the
// WAL (two LSNs read with pg_current_wal_lsn()), run as the data directory's owner. Needs the
// server on this machine and its WAL segments still in pg_wal (read right after the pass, before a
// checkpoint recycles them); the range is the whole server's, so other databases' work counts too.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Where the server keeps its data and which pg_waldump matches it, asked of `client`. */
export async function walSource(client) {
  const { rows } = await client.query(
    `SELECT current_setting('data_directory') AS dir, current_setting('server_version_num')::int / 10000 AS major`,
  );
  const { dir, major } = rows[0];
  const debian = `/usr/lib/postgresql/${major}/bin/pg_waldump`;
  return { walDir: join(dir, 'pg_wal'), dataDir: dir, bin: existsSync(debian) ? debian : 'pg_waldump' };
}

/** [{ type, records, bytes }] (bytes: record and full-page images) between two LSNs, most bytes first. */
export function walRecords({ walDir, dataDir, bin }, fromLsn, toLsn) {
  const args = ['-p', walDir, '-s', fromLsn, '-e', toLsn, '--stats=record'];
  // The WAL belongs to the server's user; root reads it as that user.
  const owner = statSync(dataDir).uid;
  const text =
    process.getuid?.() === 0 && owner !== 0
      ? execFileSync('runuser', ['-u', userName(owner), '--', bin, ...args], { encoding: 'utf8' })
      : execFileSync(bin, args, { encoding: 'utf8' });
  const rows = [];
  for (const line of text.split('\n')) {
    // Type  N (%)  Record size (%)  FPI size (%)  Combined size (%)
    const m = /^(\S+)\s+(\d+)\s+\(\s*[\d.]+\)\s+\d+\s+\(\s*[\d.]+\)\s+\d+\s+\(\s*[\d.]+\)\s+(\d+)/.exec(line);
    if (m && m[1] !== 'Total') rows.push({ type: m[1], records: Number(m[2]), bytes: Number(m[3]) });
  }
  return rows.sort((a, b) => b.bytes - a.bytes);
}

function userName(uid) {
  return execFileSync('id', ['-nu', String(uid)], { encoding: 'utf8' }).trim();
}
