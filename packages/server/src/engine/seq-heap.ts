/**
 * A min-heap of task ids ordered by seq: the interpreter acts on ended tasks in seq order and
 * must find the next one without scanning the run. Entries may go stale (the caller skips
 * them); an id may be pushed more than once.
 */
export class SeqHeap {
  private readonly ids: string[] = [];
  private readonly seqs: number[] = [];

  get size(): number {
    return this.ids.length;
  }

  push(id: string, seq: number): void {
    this.ids.push(id);
    this.seqs.push(seq);
    let i = this.ids.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.seqOf(parent) <= seq) break;
      this.swap(i, parent);
      i = parent;
    }
  }

  peek(): string | undefined {
    return this.ids[0];
  }

  pop(): string | undefined {
    const top = this.ids[0];
    const lastId = this.ids.pop();
    const lastSeq = this.seqs.pop();
    if (this.ids.length === 0 || lastId === undefined || lastSeq === undefined) return top;
    this.ids[0] = lastId;
    this.seqs[0] = lastSeq;
    let i = 0;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let smallest = i;
      if (left < this.ids.length && this.seqOf(left) < this.seqOf(smallest)) smallest = left;
      if (right < this.ids.length && this.seqOf(right) < this.seqOf(smallest)) smallest = right;
      if (smallest === i) break;
      this.swap(i, smallest);
      i = smallest;
    }
    return top;
  }

  private seqOf(i: number): number {
    return this.seqs[i] ?? Number.POSITIVE_INFINITY;
  }

  private swap(a: number, b: number): void {
    const id = this.ids[a] ?? '';
    const seq = this.seqOf(a);
    this.ids[a] = this.ids[b] ?? '';
    this.seqs[a] = this.seqOf(b);
    this.ids[b] = id;
    this.seqs[b] = seq;
  }
}
