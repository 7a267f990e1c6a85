import {
  Background,
  Controls,
  Handle,
  MarkerType,
  Position,
  ReactFlow,
  type Edge,
  type Node,
  type NodeProps,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { memo, useEffect, useMemo, useState } from 'react';

import { toneOf } from '../components/status';
import type { DiagramGraph, DiagramNode } from './graph';
import { layout, type Positions } from './layout';

/**
 * The diagram of a definition or a run: boxes coloured by their state, the branch a switch took
 * drawn solid, loops with their way back dashed. Clicking a box selects it (the run page opens
 * the task panel). Layout runs in a worker; until it answers, the previous drawing stays.
 */

type BoxData = { box: DiagramNode; selected: boolean; onOpenChild?: (id: string) => void };

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
  if (box.terminal) {
    return (
      <div className={`terminal terminal-${box.terminal}`} title={box.label}>
        <Handle type="target" position={Position.Top} isConnectable={false} />
        <Handle type="source" position={Position.Bottom} isConnectable={false} />
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
      <Handle type="target" position={Position.Top} isConnectable={false} />
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
      <Handle type="source" position={Position.Bottom} isConnectable={false} />
    </div>
  );
});

const nodeTypes = { box: Box };

export function Diagram(props: {
  graph: DiagramGraph;
  selectedRef?: string | undefined;
  onSelect?: (box: DiagramNode) => void;
  onOpenChild?: (id: string) => void;
  height?: number | string;
}) {
  const { graph } = props;
  const [positions, setPositions] = useState<Positions | undefined>();
  const [error, setError] = useState<string | undefined>();
  // Re-layout only when the shape changes, not when a state colour does.
  const shape = useMemo(
    () => graph.nodes.map((n) => n.id).join('|') + '§' + graph.edges.map((e) => `${e.source}>${e.target}`).join('|'),
    [graph],
  );
  useEffect(() => {
    let live = true;
    layout(graph).then(
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
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [shape]);

  const nodes: Node<BoxData>[] = useMemo(
    () =>
      graph.nodes.map((box) => ({
        id: box.id,
        type: 'box',
        position: positions?.[box.id] ?? { x: 0, y: 0 },
        data: {
          box,
          selected: props.selectedRef !== undefined && props.selectedRef === box.ref,
          ...(props.onOpenChild && { onOpenChild: props.onOpenChild }),
        },
        draggable: false,
        connectable: false,
        ariaLabel: `${box.label}: ${stateOf(box).toLowerCase()}`,
      })),
    [graph, positions, props.selectedRef, props.onOpenChild],
  );
  const edges: Edge[] = useMemo(
    () =>
      graph.edges.map((e) => ({
        id: e.id,
        source: e.source,
        target: e.target,
        ...(e.label !== undefined && { label: e.label }),
        type: e.back ? 'smoothstep' : 'default',
        animated: false,
        className: e.taken ? 'edge-taken' : e.back ? 'edge-back' : undefined,
        markerEnd: { type: MarkerType.ArrowClosed, width: 16, height: 16 },
        focusable: false,
      })),
    [graph],
  );

  return (
    <div className="diagram" style={{ height: props.height ?? 520 }} data-testid="diagram" data-laid-out={positions ? 'yes' : 'no'}>
      {error && <div className="alert alert-error">The diagram could not be laid out: {error}</div>}
      {positions && (
        <ReactFlow
          key={shape}
          nodes={nodes}
          edges={edges}
          nodeTypes={nodeTypes}
          fitView
          fitViewOptions={{ padding: 0.15, maxZoom: 1.1 }}
          minZoom={0.05}
          onlyRenderVisibleElements={graph.nodes.length > 150}
          nodesDraggable={false}
          nodesConnectable={false}
          onNodeClick={(_e, node) => props.onSelect?.(node.data.box)}
          proOptions={{ hideAttribution: true }}
        >
          <Background gap={20} size={1} color="#e5e7eb" />
          <Controls showInteractive={false} />
        </ReactFlow>
      )}
      {!positions && !error && <div className="diagram-wait">laying out…</div>}
    </div>
  );
}
