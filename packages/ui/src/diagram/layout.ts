import ELK, { type ElkNode } from 'elkjs/lib/elk-api.js';
import elkWorkerUrl from 'elkjs/lib/elk-worker.min.js?url';

import type { DiagramGraph, DiagramNode } from './graph';

/**
 * Places the diagram's boxes with ELK's layered algorithm, top to bottom. ELK runs in a web
 * worker so a large definition lays out without freezing the page.
 */

export const NODE_WIDTH = 210;
export const NODE_HEIGHT = 58;
export const TERMINAL_SIZE = 40;

let elk: InstanceType<typeof ELK> | undefined;
function engine(): InstanceType<typeof ELK> {
  elk ??= new ELK({ workerFactory: () => new Worker(elkWorkerUrl) });
  return elk;
}

/** A box's size on the page, as the layout places it and the CSS draws it. */
export function boxSize(node: Pick<DiagramNode, 'terminal'>): { width: number; height: number } {
  return node.terminal
    ? { width: TERMINAL_SIZE, height: TERMINAL_SIZE }
    : { width: NODE_WIDTH, height: NODE_HEIGHT };
}

export interface Positions {
  [id: string]: { x: number; y: number };
}

export async function layout(graph: DiagramGraph, direction: 'DOWN' | 'RIGHT' = 'DOWN'): Promise<Positions> {
  const root: ElkNode = {
    id: '__root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': direction,
      'elk.layered.spacing.nodeNodeBetweenLayers': '44',
      'elk.spacing.nodeNode': '28',
      'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
      'elk.layered.crossingMinimization.strategy': 'LAYER_SWEEP',
      'elk.edgeRouting': 'SPLINES',
    },
    children: graph.nodes.map((n) => ({ id: n.id, ...boxSize(n) })),
    // A loop's way back is drawn but not laid out: left in, ELK's cycle breaking may put the
    // loop's body before the loop.
    edges: graph.edges
      .filter((e) => !e.back)
      .map((e) => ({ id: e.id, sources: [e.source], targets: [e.target] })),
  };
  const placed = await engine().layout(root);
  const out: Positions = {};
  for (const child of placed.children ?? []) out[child.id] = { x: child.x ?? 0, y: child.y ?? 0 };
  return out;
}
