// Baton embedded: a server process on SQLite in a fresh data directory, workers over HTTP.
import { runBaton } from '../lib/baton-system.mjs';

export default async function run(options) {
  return runBaton(options, { label: 'Baton (embedded SQLite)' });
}
