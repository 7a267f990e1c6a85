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

export interface Point {
  x: number;
  y: number;
}

export interface Positions {
  [id: string]: Point;
}

/** A placed drawing: each box's corner, each arrow's route, and the extent of the whole. */
export interface Placed {
  direction: 'DOWN' | 'RIGHT';
  /** Laid out top to bottom in columns side by side, cut to the frame's shape. */
  wrapped: boolean;
  positions: Positions;
  /** Each edge's route from ELK: start, bends, end. */
  routes: { [edgeId: string]: Point[] };
  width: number;
  height: number;
}

/**
 * Lays the graph out. The loop's way back is laid out with the rest, so ELK routes it clear of
 * the other arrows; the boxes are ordered as the definition lists them (model order), so the
 * edges that go back in that order, and only those, are the ones reversed to break the cycle.
 */
export async function layout(
  graph: DiagramGraph,
  direction: 'DOWN' | 'RIGHT' = 'DOWN',
  /** Cut a long drawing into columns to suit a frame of this width / height. */
  wrapToAspect?: number,
): Promise<Placed> {
  const root: ElkNode = {
    id: '__root',
    layoutOptions: {
      'elk.algorithm': 'layered',
      'elk.direction': direction,
      'elk.layered.spacing.nodeNodeBetweenLayers': '30',
      'elk.spacing.nodeNode': '28',
      'elk.spacing.edgeNode': '18',
      'elk.spacing.edgeEdge': '14',
      'elk.layered.spacing.edgeNodeBetweenLayers': '12',
      'elk.layered.nodePlacement.strategy': 'BRANDES_KOEPF',
      'elk.layered.crossingMinimization.strategy': 'LAYER_SWEEP',
      'elk.layered.cycleBreaking.strategy': 'MODEL_ORDER',
      'elk.layered.considerModelOrder.strategy': 'NODES_AND_EDGES',
      'elk.layered.feedbackEdges': 'true',
      'elk.edgeRouting': 'ORTHOGONAL',
      'elk.padding': '[top=0,left=0,bottom=0,right=0]',
      ...(wrapToAspect !== undefined && {
        'elk.layered.wrapping.strategy': 'MULTI_EDGE',
        'elk.aspectRatio': wrapToAspect.toFixed(2),
      }),
    },
    children: graph.nodes.map((n) => ({ id: n.id, ...boxSize(n) })),
    edges: graph.edges.map((e) => ({ id: e.id, sources: [e.source], targets: [e.target] })),
  };
  const placed = await engine().layout(root);
  const positions: Positions = {};
  for (const child of placed.children ?? []) positions[child.id] = { x: child.x ?? 0, y: child.y ?? 0 };
  const routes: Placed['routes'] = {};
  for (const edge of placed.edges ?? []) {
    const section = edge.sections?.[0];
    if (section) routes[edge.id] = [section.startPoint, ...(section.bendPoints ?? []), section.endPoint];
  }
  return {
    direction,
    wrapped: wrapToAspect !== undefined,
    positions,
    routes,
    width: placed.width ?? 0,
    height: placed.height ?? 0,
  };
}
