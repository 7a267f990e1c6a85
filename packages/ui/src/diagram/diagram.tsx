import {
  Background,
  BaseEdge,
  Controls,
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  type Edge,
  type EdgeProps,
  type Node,
  type NodeProps,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import {
  memo,
  useCallback,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type RefObject,
} from 'react';
import { taskKindInfo } from '@baton/protocol';

import { toneOf } from '../components/status';
import { shapeOf, type DiagramEdge, type DiagramGraph, type DiagramNode } from './graph';
import { boxSize, layout, type Placed, type Point } from './layout';

/**
 * The diagram of a definition or a run: boxes coloured by their state, the branch a switch took
 * drawn solid, loops with their way back dashed. Clicking a box selects it (the run page opens
 * the task panel). Layout runs in a worker; until it answers, the previous drawing stays.
 */

type BoxData = {
  box: DiagramNode;
  /** A definition's drawing: no run, so no state to show. */
  definition: boolean;
  selected: boolean;
  horizontal: boolean;
  onOpenChild?: (id: string) => void;
};

/** A box's caption: its kind's label (protocol's TASK_KIND_INFO), or the type as written. */
function kindLabel(kind: string): string {
  if (kind === 'BRANCHES') return 'branches';
  return taskKindInfo(kind)?.label ?? kind.toLowerCase().replace(/_/g, ' ');
}

function stateOf(box: DiagramNode): string {
  if (box.counts) {
    const keys = Object.keys(box.counts);
    if (keys.some((k) => toneOf(k) === 'failed')) return 'FAILED';
    if (keys.some((k) => toneOf(k) === 'running')) return 'IN_PROGRESS';
    return keys.length > 0 ? 'COMPLETED' : 'NOT_REACHED';
  }
  return box.run?.latest.status ?? 'NOT_REACHED';
}

const Box = memo(function Box({ data }: NodeProps<Node<BoxData>>) {
  const { box } = data;
  const into = data.horizontal ? Position.Left : Position.Top;
  const out = data.horizontal ? Position.Right : Position.Bottom;
  if (box.terminal) {
    return (
      <div className={`terminal terminal-${box.terminal}`} title={box.label}>
        <Handle type="target" position={into} isConnectable={false} />
        <Handle type="source" position={out} isConnectable={false} />
        {box.terminal === 'start' ? '▶' : '■'}
      </div>
    );
  }
  const state = data.definition ? undefined : stateOf(box);
  const run = box.run;
  const child = run?.latest.subWorkflowId;
  return (
    <div
      className={`box tone-${state ? toneOf(state) : 'definition'}${data.selected ? ' box-selected' : ''}`}
      data-ref={box.ref}
      data-state={state}
      title={
        state
          ? `${box.ref} — ${state.replace(/_/g, ' ').toLowerCase()}`
          : `${box.ref} (${box.kind.toLowerCase()})`
      }
    >
      <Handle type="target" position={into} isConnectable={false} />
      <div className="box-top">
        <span className="box-kind">{kindLabel(box.kind)}</span>
        {box.mocked && <span className="box-tag">mock</span>}
        {run && run.attempts > 1 && shapeOf(box.kind) !== 'loop' && (
          <span className="box-tag" title="executions of this task (attempts and iterations)">
            ×{run.attempts}
          </span>
        )}
      </div>
      <div className="box-label">{box.label}</div>
      <div className="box-detail">
        {box.detail ??
          (child ? (
            <button
              type="button"
              className="btn-link nodrag"
              onClick={(e) => {
                e.stopPropagation();
                data.onOpenChild?.(child);
              }}
            >
              open child run →
            </button>
          ) : state ? (
            state.replace(/_/g, ' ').toLowerCase()
          ) : box.label !== box.ref ? (
            box.ref
          ) : null)}
      </div>
      <Handle type="source" position={out} isConnectable={false} />
    </div>
  );
});

/** Below this, a whole drawing is too small to read: a readable part of it is shown instead. */
const MIN_FIT_ZOOM = 0.3;
const READABLE_ZOOM = 0.55;
const MAX_ZOOM = 1.1;
const MARGIN = 24;

/**
 * Frames the drawing from its laid-out extent (known exactly, nothing to measure): all of it,
 * centred, when it fits at a readable size; otherwise a readable zoom centred on the box that
 * matters (the selected one, else the first that waits or failed), the rest a pan away. Done on
 * every layout and whenever the frame changes size (a rotated phone, a panel opening). The frame
 * says `data-fitted` once it is framed, for whoever waits for a steady picture.
 */
function Framer({
  frame,
  placed,
  focus,
}: {
  frame: RefObject<HTMLDivElement | null>;
  placed: Placed;
  focus: string | undefined;
}) {
  const flow = useReactFlow<Node<BoxData>>();
  useEffect(() => {
    const el = frame.current;
    if (!el) return undefined;
    const place = () => {
      const width = el.clientWidth;
      const height = el.clientHeight;
      if (width === 0 || height === 0) return;
      const fit = Math.min((width - 2 * MARGIN) / placed.width, (height - 2 * MARGIN) / placed.height);
      let zoom: number;
      let x: number;
      let y: number;
      if (fit >= MIN_FIT_ZOOM) {
        zoom = Math.min(fit, MAX_ZOOM);
        x = (width - placed.width * zoom) / 2;
        y = (height - placed.height * zoom) / 2;
      } else {
        zoom = READABLE_ZOOM;
        const at = focus ? placed.positions[focus] : undefined;
        const box = focus ? flow.getNode(focus) : undefined;
        const size = box ? boxSize(box.data.box) : { width: 0, height: 0 };
        // Centre on the box that matters (or the start of the drawing), never past its edges.
        const cx = at ? at.x + size.width / 2 : placed.direction === 'RIGHT' ? 0 : placed.width / 2;
        const cy = at ? at.y + size.height / 2 : placed.direction === 'RIGHT' ? placed.height / 2 : 0;
        const clamp = (want: number, frameSize: number, extent: number): number =>
          extent * zoom + 2 * MARGIN <= frameSize
            ? (frameSize - extent * zoom) / 2
            : Math.min(MARGIN, Math.max(frameSize - MARGIN - extent * zoom, want));
        x = clamp(width / 2 - cx * zoom, width, placed.width);
        y = clamp(height / 2 - cy * zoom, height, placed.height);
      }
      void flow.setViewport({ x, y, zoom });
      el.dataset.fitted = `${Math.round(x)},${Math.round(y)},${zoom.toFixed(3)}`;
    };
    place();
    if (typeof ResizeObserver === 'undefined') return undefined;
    const observer = new ResizeObserver(() => place());
    observer.observe(el);
    return () => observer.disconnect();
  }, [flow, frame, placed, focus]);
  return null;
}

/**
 * An arrow along the route ELK gave it, its corners rounded; the label on its longest leg, at
 * `labelAt` of that leg's length (the middle for a lone label).
 */
function RouteEdge(props: EdgeProps<Edge<{ route: Point[]; labelAt?: number }>>) {
  const route = props.data?.route;
  const points: Point[] =
    route && route.length >= 2
      ? route
      : [
          { x: props.sourceX, y: props.sourceY },
          { x: props.targetX, y: props.targetY },
        ];
  const path = roundedPath(points, 8);
  const mid = labelPoint(points, props.data?.labelAt ?? 0.5);
  return (
    <BaseEdge
      id={props.id}
      path={path}
      {...(props.markerEnd !== undefined && { markerEnd: props.markerEnd })}
      {...(props.style !== undefined && { style: props.style })}
      label={props.label}
      labelX={mid.x}
      labelY={mid.y}
      labelBgPadding={[4, 2]}
      labelBgBorderRadius={4}
    />
  );
}

function roundedPath(points: readonly Point[], radius: number): string {
  const first = points[0];
  if (!first) return '';
  let d = `M ${first.x} ${first.y}`;
  for (let i = 1; i < points.length - 1; i++) {
    const prev = points[i - 1]!;
    const at = points[i]!;
    const next = points[i + 1]!;
    const inLen = Math.hypot(at.x - prev.x, at.y - prev.y);
    const outLen = Math.hypot(next.x - at.x, next.y - at.y);
    const r = Math.min(radius, inLen / 2, outLen / 2);
    const a = {
      x: at.x - ((at.x - prev.x) / (inLen || 1)) * r,
      y: at.y - ((at.y - prev.y) / (inLen || 1)) * r,
    };
    const b = {
      x: at.x + ((next.x - at.x) / (outLen || 1)) * r,
      y: at.y + ((next.y - at.y) / (outLen || 1)) * r,
    };
    d += ` L ${a.x} ${a.y} Q ${at.x} ${at.y} ${b.x} ${b.y}`;
  }
  const last = points[points.length - 1]!;
  return `${d} L ${last.x} ${last.y}`;
}

/** A point `at` (0..1) along the route's longest leg: where a label has room. */
function labelPoint(points: readonly Point[], at: number): Point {
  let best = { x: points[0]?.x ?? 0, y: points[0]?.y ?? 0 };
  let bestLen = -1;
  for (let i = 1; i < points.length; i++) {
    const a = points[i - 1]!;
    const b = points[i]!;
    const len = Math.hypot(b.x - a.x, b.y - a.y);
    if (len > bestLen) {
      bestLen = len;
      best = { x: a.x + (b.x - a.x) * at, y: a.y + (b.y - a.y) * at };
    }
  }
  return best;
}

/**
 * Where along its longest leg an edge's label goes. A switch's branches often run side by side
 * for a long way (ELK routes them in parallel), so labels at each leg's middle would lie on top
 * of one another: the k-th labelled edge of n leaving one box sits at (k + 1) / (n + 1) instead.
 */
function labelAt(edges: readonly DiagramEdge[], edge: DiagramEdge): number {
  if (edge.label === undefined) return 0.5;
  const siblings = edges.filter((e) => e.source === edge.source && e.label !== undefined);
  return (siblings.indexOf(edge) + 1) / (siblings.length + 1);
}

/** The box to frame in a big drawing: the selected one, else the first that waits or failed. */
function focusOf(graph: DiagramGraph, selectedRef: string | undefined): string | undefined {
  const selected = selectedRef && graph.nodes.find((n) => n.ref === selectedRef);
  if (selected) return selected.id;
  const failed = graph.nodes.find((n) => toneOf(stateOf(n)) === 'failed');
  const open = graph.nodes.find((n) => !n.terminal && toneOf(stateOf(n)) === 'running');
  return (failed ?? open)?.id;
}

/** The least a diagram frame is cut to (below it a drawing reads too small to be of use). */
const MIN_FRAME_HEIGHT = 360;
/** Room kept under the frame: its card's padding and the page's margin. */
const BELOW_FRAME = 36;

/**
 * The frame's height: the height asked for, cut so that the frame ends within the window when
 * the page opens (a long description or a "waiting for" list above it would push a fixed-height
 * frame's bottom out of view, and the drawing fitted to it with it), but never below
 * MIN_FRAME_HEIGHT. Read again after every render and when the window changes size.
 */
function useFrameHeight(frame: RefObject<HTMLDivElement | null>, wanted: number | string): number | string {
  const [available, setAvailable] = useState<number>();
  const read = useCallback(() => {
    const el = frame.current;
    if (!el) return;
    const top = el.getBoundingClientRect().top + window.scrollY;
    const room = Math.max(MIN_FRAME_HEIGHT, Math.floor(window.innerHeight - top - BELOW_FRAME));
    setAvailable((old) => (old === room ? old : room));
  }, [frame]);
  useLayoutEffect(read);
  useEffect(() => {
    window.addEventListener('resize', read);
    return () => window.removeEventListener('resize', read);
  }, [read]);
  if (typeof wanted === 'string' || available === undefined) return wanted;
  return Math.min(wanted, available);
}

/** The frame's size, followed as it changes. */
function useFrameSize(frame: RefObject<HTMLDivElement | null>): { width: number; height: number } {
  const [size, setSize] = useState({ width: 0, height: 0 });
  useEffect(() => {
    const el = frame.current;
    if (!el) return undefined;
    const read = () =>
      setSize((s) =>
        s.width === el.clientWidth && s.height === el.clientHeight
          ? s
          : { width: el.clientWidth, height: el.clientHeight },
      );
    read();
    if (typeof ResizeObserver === 'undefined') return undefined;
    const observer = new ResizeObserver(read);
    observer.observe(el);
    return () => observer.disconnect();
  }, [frame]);
  return size;
}

type Layouts = { DOWN: Placed; RIGHT: Placed; WRAPPED: Placed };

/** The frame's shape, coarsely: a long drawing is cut into columns again only when it changes much. */
function aspectOf(frame: { width: number; height: number }): number | undefined {
  if (frame.width === 0 || frame.height === 0) return undefined;
  return Math.round((frame.width / frame.height) * 4) / 4;
}

/**
 * Of the drawing laid out top to bottom, left to right, and top to bottom cut into columns to
 * the frame's shape, the one that shows biggest in this frame: a long sequence in a wide frame
 * reads in columns, a short one top to bottom, and none leaves empty bands around a tiny
 * picture. Top to bottom, as the definition reads, unless another is clearly bigger.
 */
function pickLayout(
  layouts: Layouts | undefined,
  frame: { width: number; height: number },
): Placed | undefined {
  if (!layouts) return undefined;
  if (frame.width === 0 || frame.height === 0) return layouts.DOWN;
  const scale = (p: Placed) =>
    Math.min(MAX_ZOOM, (frame.width - 2 * MARGIN) / p.width, (frame.height - 2 * MARGIN) / p.height);
  let best = layouts.DOWN;
  for (const other of [layouts.WRAPPED, layouts.RIGHT]) if (scale(other) > scale(best) * 1.15) best = other;
  return best;
}

const nodeTypes = { box: Box };
const edgeTypes = { route: RouteEdge };

export function Diagram(props: {
  graph: DiagramGraph;
  /** A definition, not a run: the boxes show no state. */
  definition?: boolean;
  selectedRef?: string | undefined;
  onSelect?: (box: DiagramNode) => void;
  onOpenChild?: (id: string) => void;
  height?: number | string;
}) {
  const { graph } = props;
  const definition = props.definition ?? false;
  const frame = useRef<HTMLDivElement>(null);
  const frameSize = useFrameSize(frame);
  const frameHeight = useFrameHeight(frame, props.height ?? 520);
  const focus = useMemo(() => focusOf(graph, props.selectedRef), [graph, props.selectedRef]);
  const [layouts, setLayouts] = useState<Layouts>();
  const aspect = aspectOf(frameSize);
  const [error, setError] = useState<string | undefined>();
  // Re-layout only when the shape changes, not when a state colour does.
  const shape = useMemo(
    () =>
      graph.nodes.map((n) => n.id).join('|') +
      '§' +
      graph.edges.map((e) => `${e.source}>${e.target}`).join('|'),
    [graph],
  );
  useEffect(() => {
    let live = true;
    if (aspect === undefined) return undefined;
    Promise.all([layout(graph, 'DOWN'), layout(graph, 'RIGHT'), layout(graph, 'DOWN', aspect)]).then(
      ([DOWN, RIGHT, WRAPPED]) => {
        if (live) {
          setLayouts({ DOWN, RIGHT, WRAPPED });
          setError(undefined);
        }
      },
      (err: unknown) => live && setError(err instanceof Error ? err.message : String(err)),
    );
    return () => {
      live = false;
    };
    // Laid out again only when the shape or the frame's shape changes (graph is read then).
  }, [shape, aspect]);
  const placed = pickLayout(layouts, frameSize);
  const horizontal = placed?.direction === 'RIGHT';

  const nodes: Node<BoxData>[] = useMemo(
    () =>
      graph.nodes.map((box) => ({
        id: box.id,
        type: 'box',
        position: placed?.positions[box.id] ?? { x: 0, y: 0 },
        data: {
          box,
          definition,
          selected: props.selectedRef !== undefined && props.selectedRef === box.ref,
          horizontal,
          ...(props.onOpenChild && { onOpenChild: props.onOpenChild }),
        },
        // The size is known (the layout used it), so a box is drawn at once instead of hidden
        // until React Flow has measured it: a box whose measurement was missed stayed hidden.
        initialWidth: boxSize(box).width,
        initialHeight: boxSize(box).height,
        draggable: false,
        connectable: false,
        ariaLabel: definition ? box.label : `${box.label}: ${stateOf(box).toLowerCase()}`,
      })),
    [graph, placed, horizontal, definition, props.selectedRef, props.onOpenChild],
  );
  const edges: Edge[] = useMemo(
    () =>
      graph.edges.map((e) => ({
        id: e.id,
        source: e.source,
        target: e.target,
        ...(e.label !== undefined && { label: e.label }),
        type: 'route',
        data: { route: placed?.routes[e.id] ?? [], labelAt: labelAt(graph.edges, e) },
        animated: false,
        className: e.taken ? 'edge-taken' : e.back ? 'edge-back' : undefined,
        markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16 },
        focusable: false,
      })),
    [graph, placed],
  );

  return (
    <div
      ref={frame}
      onKeyDown={(e) => {
        // A focused box (Tab reaches them) opens with Enter or Space, as a click does.
        if (e.key !== 'Enter' && e.key !== ' ') return;
        const id = (e.target as HTMLElement).closest('.react-flow__node')?.getAttribute('data-id');
        const box = id ? graph.nodes.find((n) => n.id === id) : undefined;
        if (box && props.onSelect) {
          e.preventDefault();
          props.onSelect(box);
        }
      }}
      className="diagram"
      style={{ height: frameHeight }}
      data-testid="diagram"
      data-laid-out={placed ? 'yes' : 'no'}
      data-direction={placed && `${placed.direction}${placed.wrapped ? ' wrapped' : ''}`}
      data-extent={placed && `${Math.round(placed.width)}x${Math.round(placed.height)}`}
    >
      {error && <div className="alert alert-error">The diagram could not be laid out: {error}</div>}
      {placed && (
        <ReactFlowProvider>
          <ReactFlow
            key={`${shape}/${placed.direction}/${placed.wrapped ? aspect : ''}`}
            nodes={nodes}
            edges={edges}
            nodeTypes={nodeTypes}
            edgeTypes={edgeTypes}
            minZoom={0.05}
            maxZoom={2}
            onlyRenderVisibleElements={graph.nodes.length > 150}
            nodesDraggable={false}
            nodesConnectable={false}
            onNodeClick={(_e, node) => props.onSelect?.(node.data.box)}
            proOptions={{ hideAttribution: true }}
          >
            <Background gap={20} size={1} color="#e5e7eb" />
            <Controls showInteractive={false} />
            <Framer frame={frame} placed={placed} focus={focus} />
          </ReactFlow>
        </ReactFlowProvider>
      )}
      {!placed && !error && <div className="diagram-wait">laying out…</div>}
    </div>
  );
}
