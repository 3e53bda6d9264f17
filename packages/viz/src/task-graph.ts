import { Graph, layout } from '@dagrejs/dagre';

/** Largest graph drawn task by task; a larger one is drawn with one node per task name. */
export const DETAIL_LIMIT = 60;
/** Most names drawn when collapsed; the rarest names beyond it share one `other` node. */
export const NAME_LIMIT = 40;

/** A node of the drawn task graph: one task, or all the tasks of one name. */
export interface GraphNode {
  /** What the node shows: `name #id`, or `name ×count` when collapsed. */
  label: string;
  /** Index into `ReportData.names` (its colour), -1 for the `other` node. */
  name: number;
  /** Tasks it stands for. */
  count: number;
  /** Of those, failed. */
  failed: number;
  /** Edges between two of its own tasks (collapsed only). */
  inner: number;
  /** Centre and size, in SVG pixels. */
  x: number;
  y: number;
  width: number;
  height: number;
}

/** An edge of the drawn graph: `from` → `to` (node indexes), standing for `count` task edges. */
export interface GraphLink {
  from: number;
  to: number;
  count: number;
  /** The polyline dagre routed, flat `[x0, y0, x1, y1, ...]`. */
  points: number[];
}

/** The task graph laid out by dagre, ready to draw (see `graphSvg`). */
export interface TaskGraph {
  /** True when nodes are task names rather than tasks. */
  collapsed: boolean;
  /** Tasks and task edges in the run (not in the drawing). */
  tasks: number;
  edges: number;
  nodes: GraphNode[];
  links: GraphLink[];
  width: number;
  height: number;
}

/** What the graph is built from: per task, its name index, whether it failed, its inputs. */
export interface GraphInput {
  /** Task ids in order of first appearance. */
  ids: number[];
  nameOf: (id: number) => number;
  failed: (id: number) => boolean;
  inputs: Map<number, number[]>;
  names: readonly string[];
}

/**
 * Builds and lays out the task graph from the `spawn` events' `inputs`; called by
 * `summarise`. Up to `DETAIL_LIMIT` tasks it has a node per task; beyond, one node per task
 * name (at most `NAME_LIMIT`, then `other`) and an edge per pair of names, so a run of
 * 100,000 tasks costs one pass over its edges and a layout of a few nodes. Edges to tasks
 * the log does not show (spawned before logging began) are left out.
 */
export function taskGraph(input: GraphInput): TaskGraph {
  const { ids, inputs } = input;
  const known = new Set(ids);
  let edges = 0;
  for (const id of ids) for (const from of inputs.get(id) ?? []) if (known.has(from)) edges++;
  const collapsed = ids.length > DETAIL_LIMIT;
  const nodes: GraphNode[] = [];
  const nodeOf = new Map<number, number>(); // task id → node
  if (!collapsed) {
    for (const id of ids) {
      nodeOf.set(id, nodes.length);
      const name = input.nameOf(id);
      const failed = input.failed(id) ? 1 : 0;
      nodes.push(node(`${input.names[name]} #${id}`, name, 1, failed));
    }
  } else {
    const counts = new Map<number, number>();
    for (const id of ids) counts.set(input.nameOf(id), (counts.get(input.nameOf(id)) ?? 0) + 1);
    const kept = [...counts].sort((a, b) => b[1] - a[1]).slice(0, NAME_LIMIT);
    const byName = new Map<number, number>();
    for (const [name] of kept) {
      byName.set(name, nodes.length);
      nodes.push(node('', name, 0, 0));
    }
    let other = -1;
    for (const id of ids) {
      let n = byName.get(input.nameOf(id));
      if (n === undefined) {
        if (other < 0) {
          other = nodes.length;
          nodes.push(node('', -1, 0, 0));
        }
        n = other;
      }
      nodeOf.set(id, n);
      nodes[n].count++;
      if (input.failed(id)) nodes[n].failed++;
    }
  }
  const links = new Map<string, GraphLink>();
  for (const id of ids) {
    const to = nodeOf.get(id)!;
    for (const from of inputs.get(id) ?? []) {
      const source = nodeOf.get(from);
      if (source === undefined) continue;
      if (source === to) {
        nodes[to].inner++;
        continue;
      }
      const key = `${source} ${to}`;
      const link = links.get(key);
      if (link === undefined) links.set(key, { from: source, to, count: 1, points: [] });
      else link.count++;
    }
  }
  if (collapsed) {
    for (const n of nodes) {
      const base = n.name < 0 ? 'other' : input.names[n.name];
      n.label = `${base} ×${n.count}${n.inner > 0 ? ` (${n.inner} inner edges)` : ''}`;
    }
  }
  for (const n of nodes) n.width = Math.min(260, 16 + 6.5 * n.label.length);
  const drawn = { collapsed, tasks: ids.length, edges, nodes, links: [...links.values()] };
  return { ...drawn, ...place(drawn.nodes, drawn.links) };
}

function node(label: string, name: number, count: number, failed: number): GraphNode {
  return { label, name, count, failed, inner: 0, x: 0, y: 0, width: 0, height: 24 };
}

/**
 * The last layout, by the shape it was made for: the dashboard summarises a growing log
 * several times a second, and a graph that did not change shape is not laid out again.
 */
let last:
  | { key: string; nodes: number[]; links: number[][]; size: { width: number; height: number } }
  | undefined;

/** Lays the nodes and links out left to right with dagre; fills in positions and routes. */
function place(nodes: GraphNode[], links: GraphLink[]): { width: number; height: number } {
  if (nodes.length === 0) return { width: 0, height: 0 };
  const key = `${nodes.map((n) => n.width).join()}|${links.map((l) => `${l.from}>${l.to}:${l.count}`).join()}`;
  if (last?.key === key) {
    nodes.forEach((n, i) => {
      n.x = last!.nodes[2 * i];
      n.y = last!.nodes[2 * i + 1];
    });
    links.forEach((l, i) => {
      l.points = last!.links[i];
    });
    return last.size;
  }
  const laid = layoutWithDagre(nodes, links);
  last = {
    key,
    nodes: nodes.flatMap((n) => [n.x, n.y]),
    links: links.map((l) => l.points),
    size: laid,
  };
  return laid;
}

function layoutWithDagre(
  nodes: GraphNode[],
  links: GraphLink[],
): { width: number; height: number } {
  const g = new Graph();
  g.setGraph({ rankdir: 'LR', nodesep: 10, ranksep: 36, marginx: 8, marginy: 8 });
  g.setDefaultEdgeLabel(() => ({}));
  nodes.forEach((n, i) => {
    g.setNode(String(i), { width: n.width, height: n.height });
  });
  for (const l of links) g.setEdge(String(l.from), String(l.to), { weight: l.count });
  layout(g);
  nodes.forEach((n, i) => {
    const placed = g.node(String(i));
    n.x = placed.x;
    n.y = placed.y;
  });
  for (const l of links) {
    const route = g.edge(String(l.from), String(l.to)) as { points?: { x: number; y: number }[] };
    l.points = (route.points ?? []).flatMap((p) => [round(p.x), round(p.y)]);
  }
  const { width = 0, height = 0 } = g.graph();
  return { width: Math.ceil(width), height: Math.ceil(height) };
}

function round(v: number): number {
  return Math.round(v * 10) / 10;
}
