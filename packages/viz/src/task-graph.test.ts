import { describe, expect, it } from 'vitest';
import { summarise } from './report-data.js';
import { DETAIL_LIMIT, NAME_LIMIT, taskGraph } from './task-graph.js';

/** Spawn events of a fan-out/fan-in run: `n` tasks named `map`, each from `load`, into `sum`. */
function fan(n: number) {
  const logs = [{ kind: 'spawn', time: 0, task: 0, name: 'load', inputs: [] as number[] }];
  for (let i = 1; i <= n; i++)
    logs.push({ kind: 'spawn', time: i, task: i, name: 'map', inputs: [0] });
  const all = Array.from({ length: n }, (_, i) => i + 1);
  logs.push({ kind: 'spawn', time: n + 1, task: n + 1, name: 'sum', inputs: all });
  return logs;
}

describe('taskGraph', () => {
  it('draws a small graph task by task, inputs to the left of the tasks taking them', () => {
    const { graph, names } = summarise(fan(3));
    expect(graph).toMatchObject({ collapsed: false, tasks: 5, edges: 6 });
    expect(graph.nodes.map((n) => n.label)).toEqual([
      'load #0',
      'map #1',
      'map #2',
      'map #3',
      'sum #4',
    ]);
    expect(graph.nodes.map((n) => names[n.name])).toEqual(['load', 'map', 'map', 'map', 'sum']);
    for (const l of graph.links) {
      expect(graph.nodes[l.from].x).toBeLessThan(graph.nodes[l.to].x);
      expect(l.points.length).toBeGreaterThanOrEqual(4);
    }
    // Boxes do not overlap.
    const boxes = graph.nodes;
    for (const a of boxes)
      for (const b of boxes) {
        if (a === b) continue;
        const apart =
          Math.abs(a.x - b.x) * 2 >= a.width + b.width ||
          Math.abs(a.y - b.y) * 2 >= a.height + b.height;
        expect(apart).toBe(true);
      }
  });

  it('collapses a large graph to one node per name, summing edges per name pair', () => {
    const n = 100_000;
    // CPU time, not wall time: a loaded machine stretches the wall clock, not the work done.
    const cpu0 = process.cpuUsage();
    const { graph } = summarise(fan(n));
    const cpu = process.cpuUsage(cpu0);
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(10_000); // generous: a layout of 3 nodes
    expect(graph).toMatchObject({ collapsed: true, tasks: n + 2, edges: 2 * n });
    expect(graph.nodes.map((x) => [x.label, x.count])).toEqual([
      ['map ×100000', n],
      ['load ×1', 1],
      ['sum ×1', 1],
    ]);
    expect(
      graph.links.map((l) => [graph.nodes[l.from].label, graph.nodes[l.to].label, l.count]),
    ).toEqual([
      ['load ×1', 'map ×100000', n],
      ['map ×100000', 'sum ×1', n],
    ]);
  });

  it('keeps the commonest names, puts the rest in one other node, counts inner edges and failures', () => {
    const ids: number[] = [];
    const nameOf = new Map<number, number>();
    const names = Array.from({ length: NAME_LIMIT + 5 }, (_, i) => `f${i}`);
    let id = 0;
    names.forEach((_, k) => {
      // Name k has more tasks the smaller k is; at least two each.
      for (let j = 0; j < 2 + names.length - k; j++) {
        ids.push(id);
        nameOf.set(id++, k);
      }
    });
    expect(ids.length).toBeGreaterThan(DETAIL_LIMIT);
    const inputs = new Map([[1, [0]]]); // f0 → f0
    const graph = taskGraph({
      ids,
      nameOf: (t) => nameOf.get(t)!,
      failed: (t) => t === ids.length - 1,
      inputs,
      names,
    });
    expect(graph.nodes).toHaveLength(NAME_LIMIT + 1);
    const other = graph.nodes[NAME_LIMIT];
    expect(other.name).toBe(-1);
    expect(other.label).toMatch(/^other ×\d+$/);
    expect(other.failed).toBe(1);
    expect(graph.nodes[0].inner).toBe(1);
    expect(graph.nodes[0].label).toBe(`f0 ×${2 + names.length} (1 inner edges)`);
    expect(graph.links).toEqual([]);
  });

  it('reuses the last layout for a graph of the same shape, and lays out a new shape anew', () => {
    const a = summarise(fan(4)).graph;
    const b = summarise(fan(4)).graph;
    expect(b.nodes.map((n) => [n.x, n.y])).toEqual(a.nodes.map((n) => [n.x, n.y]));
    expect(b.links).toEqual(a.links);
    const c = summarise(fan(5)).graph;
    expect(c.nodes).toHaveLength(7);
    expect(new Set(c.nodes.map((n) => `${n.x},${n.y}`)).size).toBe(7);
    expect(c.height).toBeGreaterThan(a.height);
  });

  it('leaves out edges from tasks the log does not show', () => {
    const { graph } = summarise([{ kind: 'spawn', time: 0, task: 5, name: 'x', inputs: [3] }]);
    expect(graph).toMatchObject({ tasks: 1, edges: 0, links: [] });
  });
});
