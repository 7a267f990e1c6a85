// Bounds a benchmark phase in time, so that a system that stops making progress fails the
// benchmark loudly instead of hanging it.

/** Answers `promise`'s outcome, or rejects naming `what` once `ms` have passed without one. */
export async function withDeadline(promise, ms, what) {
  let timer;
  const expired = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}
