// The small JSON payload every system's steps carry (about 200 bytes), so that no system is
// measured moving empty messages.
export function stepPayload(run, step) {
  return {
    run,
    step,
    orderId: `order-${run}`,
    amount: 42.5,
    items: [
      { sku: 'sku-1', qty: 1 },
      { sku: 'sku-2', qty: 3 },
    ],
    note: 'a small note that stands for a realistic business payload',
  };
}
