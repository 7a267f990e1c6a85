// The server package's own end-to-end helpers: a real Baton process and small HTTP utilities.
export {
  startBaton,
  freePort,
  waitFor,
  mapLimit,
  repoRoot,
  type BatonProcess,
} from '@baton/server/test/baton-process';
