// Preloaded into every test file's process by scripts/run-tests.mjs (node --import).
//
// A file whose tests have all finished but which leaves something open (a socket, a timer) would
// keep its process, and so the run, alive. Node's own --test-force-exit ends such a process with
// process.exit() while the file's results may still sit in the pipe to the runner: the runner then
// counts fewer tests than ran and still exits 0. Instead, once every test of the file has ended,
// this gives the process a grace period to exit by itself, then makes its stdout blocking (so
// what is buffered is written before the exit) and ends it.
import { after } from 'node:test';

const GRACE_MS = 5_000;

after(() => {
  const timer = setTimeout(() => {
    process.stderr.write(
      `# ${process.argv[1] ?? 'a test file'} left handles open ${GRACE_MS} ms after its last test; ending it\n`,
    );
    const handle = /** @type {{ _handle?: { setBlocking?: (on: boolean) => void } }} */ (process.stdout)
      ._handle;
    handle?.setBlocking?.(true);
    process.exit(process.exitCode ?? 0);
  }, GRACE_MS);
  timer.unref();
});
