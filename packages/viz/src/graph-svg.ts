import { colour, escapeHtml } from './report-tables.js';
import type { TaskGraph } from './task-graph.js';

/**
 * The report's "Task graph" section: the dagre layout of `graph` as inline SVG (a box per
 * task or task name, coloured as in the Gantt, red-edged when any failed; an arrow per
 * input edge, thicker for more edges). Hover shows counts (SVG `<title>`). The `<svg>`
 * carries `data-nodes`, `data-links`, `data-tasks`, `data-edges` and `data-collapsed` for
 * tests. Called by `sectionsHtml` for the report file and every dashboard update.
 */
export function graphSvg(graph: TaskGraph): string {
  const how = graph.collapsed
    ? `${graph.tasks} tasks and ${graph.edges} edges, one box per task name`
    : `${graph.tasks} tasks and ${graph.edges} edges`;
  const parts = [
    `<section><h2>Task graph</h2><p class="hint">${how}; an arrow points from an input to the task taking it.</p>`,
    `<div class="graph-wrap"><svg id="graph" width="${graph.width}" height="${graph.height}"`,
    ` viewBox="0 0 ${graph.width} ${graph.height}" data-nodes="${graph.nodes.length}"`,
    ` data-links="${graph.links.length}" data-tasks="${graph.tasks}" data-edges="${graph.edges}"`,
    ` data-collapsed="${graph.collapsed}">`,
    '<defs><marker id="arrow" viewBox="0 0 8 8" refX="8" refY="4" markerWidth="8" markerHeight="8" markerUnits="userSpaceOnUse" orient="auto">',
    '<path d="M0,0L8,4L0,8z" fill="#888"/></marker></defs>',
  ];
  for (const link of graph.links) {
    const p = link.points;
    let d = '';
    for (let i = 0; i < p.length; i += 2) d += `${i === 0 ? 'M' : 'L'}${p[i]},${p[i + 1]}`;
    const width = Math.min(4, 1 + Math.log10(link.count) / 2);
    const what = `${graph.nodes[link.from].label} → ${graph.nodes[link.to].label}: ${link.count} edge${link.count === 1 ? '' : 's'}`;
    parts.push(
      `<path class="link" d="${d}" fill="none" stroke="#999" stroke-width="${width.toFixed(1)}" marker-end="url(#arrow)"><title>${escapeHtml(what)}</title></path>`,
    );
  }
  for (const node of graph.nodes) {
    const x = node.x - node.width / 2;
    const y = node.y - node.height / 2;
    const fill = node.name < 0 ? '#ccc' : colour(node.name);
    const stroke = node.failed > 0 ? '#d33' : '#555';
    const title = `${node.label}${node.failed > 0 ? `\n${node.failed} failed` : ''}`;
    parts.push(
      `<g class="node" data-count="${node.count}"><title>${escapeHtml(title)}</title>`,
      `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${node.width.toFixed(1)}" height="${node.height}" rx="4" fill="${fill}" fill-opacity="0.35" stroke="${stroke}" stroke-width="${node.failed > 0 ? 2 : 1}"/>`,
      `<text x="${node.x.toFixed(1)}" y="${(node.y + 4).toFixed(1)}" text-anchor="middle">${escapeHtml(node.label)}</text></g>`,
    );
  }
  parts.push('</svg></div></section>');
  return parts.join('');
}
