import {
  Background,
  Controls,
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  ReactFlowProvider,
  useReactFlow,
  type Edge,
  type Node,
  type NodeProps,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { memo, useEffect, useMemo, useRef, useState, type RefObject } from 'react';

import { toneOf } from '../components/status';
import type { DiagramGraph, DiagramNode } from './graph';
import { boxSize, layout, type Positions } from './layout';

/**
 * The diagram of a definition or a run: boxes coloured by their state, the branch a switch took
 * drawn solid, loops with their way back dashed. Clicking a box selects it (the run page opens
 * the task panel). Layout runs in a worker; until it answers, the previous drawing stays.
 */

type BoxData = {
  box: DiagramNode;
  selected: boolean;
  horizontal: boolean;
  onOpenChild?: (id: string) => void;
};

const KIND_LABEL: Record<string, string> = {
  SIMPLE: 'worker',
  FORK_JOIN: 'fork',
  FORK_JOIN_DYNAMIC: 'dynamic fork',
  DO_WHILE: 'loop',
  SUB_WORKFLOW: 'sub-workflow',
  BRANCHES: 'branches',
};

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
  const state = stateOf(box);
  const run = box.run;
  const child = run?.latest.subWorkflowId;
  return (
    <div
      className={`box tone-${toneOf(state)}${data.selected ? ' box-selected' : ''}`}
      data-ref={box.ref}
      data-state={state}
      title={`${box.ref} — ${state.replace(/_/g, ' ').toLowerCase()}`}
    >
      <Handle type="target" position={into} isConnectable={false} />
      <div className="box-top">
        <span className="box-kind">{KIND_LABEL[box.kind] ?? box.kind.toLowerCase().replace(/_/g, ' ')}</span>
        {box.mocked && <span className="box-tag">mock</span>}
        {run && run.attempts > 1 && box.kind !== 'DO_WHILE' && (
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
          ) : (
            state.replace(/_/g, ' ').toLowerCase()
          ))}
      </div>
      <Handle type="source" position={out} isConnectable={false} />
      {/* A loop's way back leaves and enters on the side, clear of the forward arrows. */}
      <Handle id="loop-out" type="source" position={Position.Right} isConnectable={false} />
      <Handle id="loop-in" type="target" position={Position.Right} isConnectable={false} />
    </div>
  );
});

const MIN_READABLE_ZOOM = 0.8;
const MAX_ZOOM = 1.1;

/**
 * Frames the drawing: all of it when it fits at a readable size; otherwise a readable zoom
 * centred on the box that matters (the selected one, else the first that waits or failed), the
 * rest a pan away. Done again when the frame changes size (a rotated phone, a panel opening).
 */
function Framer({ frame, focus }: { frame: RefObject<HTMLDivElement | null>; focus: string | undefined }) {
  const flow = useReactFlow<Node<BoxData>>();
  useEffect(() => {
    const el = frame.current;
    if (!el) return undefined;
    const place = () => {
      const nodes = flow.getNodes();
      if (nodes.length === 0 || el.clientWidth === 0) return;
      // Sizes are known from the layout; the measured ones may not be there yet.
      const size = (n: Node<BoxData>) => boxSize(n.data.box);
      const x0 = Math.min(...nodes.map((n) => n.position.x));
      const y0 = Math.min(...nodes.map((n) => n.position.y));
      const bounds = {
        x: x0,
        y: y0,
        width: Math.max(...nodes.map((n) => n.position.x + size(n).width)) - x0,
        height: Math.max(...nodes.map((n) => n.position.y + size(n).height)) - y0,
      };
      const fit = Math.min(el.clientWidth / (bounds.width + 80), el.clientHeight / (bounds.height + 80));
      if (fit >= MIN_READABLE_ZOOM) {
        void flow.fitView({ padding: 0.12, maxZoom: MAX_ZOOM });
        return;
      }
      const zoom = MIN_READABLE_ZOOM;
      const target = nodes.find((n) => n.id === focus);
      // Centre on the box that matters (or the top of the drawing), but never show empty space
      // beyond the drawing's edges when it is bigger than the frame.
      const cx = target ? target.position.x + size(target).width / 2 : bounds.x + bounds.width / 2;
      const cy = target ? target.position.y + size(target).height / 2 : bounds.y;
      const clamp = (want: number, frameSize: number, start: number, extent: number): number => {
        if (extent * zoom + 48 <= frameSize) return frameSize / 2 - (start + extent / 2) * zoom;
        return Math.min(24 - start * zoom, Math.max(frameSize - 24 - (start + extent) * zoom, want));
      };
      const x = clamp(el.clientWidth / 2 - cx * zoom, el.clientWidth, bounds.x, bounds.width);
      const y = clamp(el.clientHeight / 2 - cy * zoom, el.clientHeight, bounds.y, bounds.height);
      void flow.setViewport({ x, y, zoom });
    };
    const first = window.setTimeout(place, 60);
    let timer: number | undefined;
    const observer =
      typeof ResizeObserver === 'undefined'
        ? undefined
        : new ResizeObserver(() => {
            window.clearTimeout(timer);
            timer = window.setTimeout(place, 60);
          });
    observer?.observe(el);
    return () => {
      observer?.disconnect();
      window.clearTimeout(first);
      window.clearTimeout(timer);
    };
  }, [flow, frame, focus]);
  return null;
}

/** The box to frame in a big drawing: the selected one, else the first that waits or failed. */
function focusOf(graph: DiagramGraph, selectedRef: string | undefined): string | undefined {
  const selected = selectedRef && graph.nodes.find((n) => n.ref === selectedRef);
  if (selected) return selected.id;
  const failed = graph.nodes.find((n) => toneOf(stateOf(n)) === 'failed');
  const open = graph.nodes.find((n) => !n.terminal && toneOf(stateOf(n)) === 'running');
  return (failed ?? open)?.id;
}

/** Wide frames read left to right; narrow ones (a phone) top to bottom. */
function useDirection(frame: RefObject<HTMLDivElement | null>): 'RIGHT' | 'DOWN' {
  const [direction, setDirection] = useState<'RIGHT' | 'DOWN'>('RIGHT');
  useEffect(() => {
    const el = frame.current;
    if (!el) return undefined;
    const pick = () => setDirection(el.clientWidth >= 1100 ? 'RIGHT' : 'DOWN');
    pick();
    if (typeof ResizeObserver === 'undefined') return undefined;
    const observer = new ResizeObserver(pick);
    observer.observe(el);
    return () => observer.disconnect();
  }, [frame]);
  return direction;
}

const nodeTypes = { box: Box };

export function Diagram(props: {
  graph: DiagramGraph;
  selectedRef?: string | undefined;
  onSelect?: (box: DiagramNode) => void;
  onOpenChild?: (id: string) => void;
  height?: number | string;
}) {
  const { graph } = props;
  const frame = useRef<HTMLDivElement>(null);
  const direction = useDirection(frame);
  const horizontal = direction === 'RIGHT';
  const focus = useMemo(() => focusOf(graph, props.selectedRef), [graph, props.selectedRef]);
  const [positions, setPositions] = useState<Positions | undefined>();
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
    layout(graph, direction).then(
      (p) => {
        if (live) {
          setPositions(p);
          setError(undefined);
        }
      },
      (err: unknown) => live && setError(err instanceof Error ? err.message : String(err)),
    );
    return () => {
      live = false;
    };
    // Laid out again only when the shape or the direction changes (graph is read at that moment).
  }, [shape, direction]);

  const nodes: Node<BoxData>[] = useMemo(
    () =>
      graph.nodes.map((box) => ({
        id: box.id,
        type: 'box',
        position: positions?.[box.id] ?? { x: 0, y: 0 },
        data: {
          box,
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
        ariaLabel: `${box.label}: ${stateOf(box).toLowerCase()}`,
      })),
    [graph, positions, horizontal, props.selectedRef, props.onOpenChild],
  );
  const edges: Edge[] = useMemo(
    () =>
      graph.edges.map((e) => ({
        id: e.id,
        source: e.source,
        target: e.target,
        ...(e.label !== undefined && { label: e.label }),
        type: e.back ? 'smoothstep' : 'default',
        ...(e.back && {
          sourceHandle: 'loop-out',
          targetHandle: 'loop-in',
          pathOptions: { offset: 28, borderRadius: 10 },
        }),
        animated: false,
        className: e.taken ? 'edge-taken' : e.back ? 'edge-back' : undefined,
        markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16 },
        focusable: false,
      })),
    [graph],
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
      style={{ height: props.height ?? 520 }}
      data-testid="diagram"
      data-laid-out={positions ? 'yes' : 'no'}
    >
      {error && <div className="alert alert-error">The diagram could not be laid out: {error}</div>}
      {positions && (
        <ReactFlowProvider>
          <ReactFlow
            key={`${shape}/${direction}`}
            nodes={nodes}
            edges={edges}
            nodeTypes={nodeTypes}
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
            <Framer frame={frame} focus={focus} />
          </ReactFlow>
        </ReactFlowProvider>
      )}
      {!positions && !error && <div className="diagram-wait">laying out…</div>}
    </div>
  );
}
