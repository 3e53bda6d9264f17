import { BAR_WIDTH, type ReportData } from './report-data.js';

/**
 * The report's tables as HTML: summary (numbers also in `data-summary` attributes), one lane
 * row per processor with its utilisation, tasks grouped by name, data moved per processor
 * pair, and spills. Called by `reportHtml` and by the dashboard on every update.
 */
export function tablesHtml(data: ReportData): string {
  const s = data.summary;
  const wall = s.wallTime;
  const summaryRows: [string, string, number, string][] = [
    ['tasks', 'Tasks', s.tasks, String(s.tasks)],
    ['failures', 'Failures', s.failures, String(s.failures)],
    ['wallTime', 'Wall time', s.wallTime, formatMs(s.wallTime)],
    ['bytesMoved', 'Bytes moved', s.bytesMoved, formatBytes(s.bytesMoved)],
    ['moves', 'Moves', s.moves, String(s.moves)],
    ['bytesSpilled', 'Spilled (whole run)', s.bytesSpilled, formatBytes(s.bytesSpilled)],
    ['bytesUnspilled', 'Read back (whole run)', s.bytesUnspilled, formatBytes(s.bytesUnspilled)],
  ];
  const parts: string[] = ['<section><h2>Summary</h2><table class="summary">'];
  for (const [key, label, value, shown] of summaryRows) {
    parts.push(
      `<tr><th>${label}</th><td data-summary="${key}" data-value="${value}">${shown}</td></tr>`,
    );
  }
  parts.push('</table></section>');
  if (data.phases.length > 0) parts.push(phasesHtml(data));

  parts.push(
    '<section><h2>Processors</h2><table><tr><th>lane</th><th>tasks</th><th>busy</th><th>utilisation</th></tr>',
  );
  const perLane = new Array<number>(data.processors.length).fill(0);
  for (let i = 2; i < data.bars.length; i += BAR_WIDTH) perLane[data.bars[i]]++;
  data.processors.forEach((id, i) => {
    const share = wall > 0 ? data.busy[i] / wall : 0;
    parts.push(
      `<tr data-lane="${escapeHtml(id)}" data-bars="${perLane[i]}"><td>${escapeHtml(id)}</td>` +
        `<td>${perLane[i]}</td><td>${formatMs(data.busy[i])}</td>` +
        `<td><span class="meter"><span style="width:${(share * 100).toFixed(1)}%"></span></span> ${(share * 100).toFixed(1)}%</td></tr>`,
    );
  });
  parts.push('</table></section>');

  const byName = new Map<number, [number, number, number]>();
  for (let i = 0; i < data.bars.length; i += BAR_WIDTH) {
    const row = byName.get(data.bars[i + 1]) ?? [0, 0, 0];
    row[0]++;
    row[1] += data.bars[i + 4];
    if (data.bars[i + 5] === 1) row[2]++;
    byName.set(data.bars[i + 1], row);
  }
  parts.push(
    '<section><h2>Tasks by name</h2><table><tr><th>name</th><th>runs</th><th>total time</th><th>mean</th><th>failed</th></tr>',
  );
  for (const [name, [count, time, failed]] of [...byName].sort((a, b) => b[1][1] - a[1][1])) {
    parts.push(
      `<tr data-name="${escapeHtml(data.names[name])}"><td><i class="swatch" style="background:${colour(name)}"></i>${escapeHtml(data.names[name])}</td>` +
        `<td>${count}</td><td>${formatMs(time)}</td><td>${formatMs(time / count)}</td><td>${failed}</td></tr>`,
    );
  }
  parts.push('</table></section>');

  if (data.transfers.length > 0) {
    parts.push(
      '<section><h2>Data moved</h2><table><tr><th>from</th><th>to</th><th>bytes</th><th>moves</th></tr>',
    );
    for (const [from, to, bytes, count] of data.transfers) {
      parts.push(
        `<tr data-transfer="${escapeHtml(from)} ${escapeHtml(to)}"><td>${escapeHtml(from)}</td><td>${escapeHtml(to)}</td>` +
          `<td data-value="${bytes}">${formatBytes(bytes)}</td><td>${count}</td></tr>`,
      );
    }
    parts.push('</table></section>');
  }
  if (data.spills.length > 0) {
    parts.push(
      '<section><h2>Spilled data</h2><table><tr><th>device</th><th>spills + unspills</th><th>peak held</th><th>held over the run</th></tr>',
    );
    for (const { device, points } of data.spills) {
      const peak = points.reduce((m, p) => Math.max(m, p[1]), 0);
      parts.push(
        `<tr data-device="${escapeHtml(device)}"><td>${escapeHtml(device)}</td><td>${points.length}</td><td>${formatBytes(peak)}</td>` +
          `<td>${levelChart(points, peak, wall)}</td></tr>`,
      );
    }
    parts.push('</table></section>');
  }
  if (data.memory.length > 0) {
    parts.push(
      '<section><h2>Memory and CPU in use</h2><table><tr><th>process</th><th>samples</th><th>last</th><th>peak</th><th>over the run</th><th>CPU, mean cores</th></tr>',
    );
    for (const { worker, points } of data.memory) {
      const peak = points.reduce((m, p) => Math.max(m, p[1]), 0);
      const cores = meanCores(data.cpu.find((c) => c.worker === worker)?.points);
      parts.push(
        `<tr data-memory="${worker}"><td>worker ${worker}</td><td>${points.length}</td><td>${formatBytes(points[points.length - 1][1])}</td>` +
          `<td data-value="${peak}">${formatBytes(peak)}</td><td>${levelChart(points, peak, wall)}</td>` +
          `<td data-cpu="${cores ?? ''}">${cores === undefined ? '' : cores.toFixed(2)}</td></tr>`,
      );
    }
    parts.push('</table></section>');
  }
  return parts.join('');
}

/**
 * The figures of each named phase beside the whole run's: Spilled and Read back in the summary
 * cover the whole run, these only what fell within each phase's span.
 */
function phasesHtml(data: ReportData): string {
  const rows = data.phases.map(
    (p) =>
      `<tr data-phase="${escapeHtml(p.name)}"><td>${escapeHtml(p.name)}</td><td>${formatMs(p.duration)}</td>` +
      `<td data-value="${p.tasks}">${p.tasks}</td><td data-value="${p.bytesMoved}">${formatBytes(p.bytesMoved)}</td>` +
      `<td data-value="${p.bytesSpilled}">${formatBytes(p.bytesSpilled)}</td>` +
      `<td data-value="${p.bytesUnspilled}">${formatBytes(p.bytesUnspilled)}</td></tr>`,
  );
  return (
    '<section><h2>Phases</h2><p class="hint">Each step of the run on its own; the summary above covers the whole run.</p>' +
    '<table><tr><th>phase</th><th>time</th><th>task runs</th><th>moved</th><th>spilled</th><th>read back</th></tr>' +
    `${rows.join('')}</table></section>`
  );
}

/** The mean number of cores kept busy over `[time, cores]` samples, each weighted alike. */
function meanCores(points: readonly [number, number][] | undefined): number | undefined {
  if (points === undefined || points.length === 0) return undefined;
  return points.reduce((s, p) => s + p[1], 0) / points.length;
}

/**
 * A small SVG step chart of bytes held on a storage device over the run, at most 400 steps
 * (every k-th sample of a longer series, and the last).
 */
function levelChart(points: readonly [number, number][], peak: number, wall: number): string {
  const width = 240;
  const height = 40;
  const every = Math.max(1, Math.ceil(points.length / 400));
  const x = (t: number) => (wall > 0 ? (t / wall) * width : 0).toFixed(1);
  const y = (v: number) => (peak > 0 ? height - (v / peak) * height : height).toFixed(1);
  let level = 0;
  let path = `M0,${y(0)}`;
  for (let i = 0; i < points.length; i++) {
    if (i % every !== 0 && i !== points.length - 1) continue;
    const [t, v] = points[i];
    path += ` H${x(t)} V${y(v)}`;
    level = v;
  }
  path += ` H${width} V${y(level)}`;
  return `<svg class="level" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}"><path d="${path}" fill="none" stroke="#a64" stroke-width="1.5"/></svg>`;
}

/** Distinct colours for the first task names, none of them the red of failures. */
export const PALETTE = [
  '#4e79a7',
  '#f28e2b',
  '#59a14f',
  '#b07aa1',
  '#edc948',
  '#76b7b2',
  '#9c755f',
  '#ff9da7',
  '#8cd17d',
  '#bab0ac',
];

/**
 * The colour of the task name at `index` in `ReportData.names`: the palette, then hues spread
 * by the golden angle (the page's Gantt uses the same rule).
 */
export function colour(index: number): string {
  if (index < PALETTE.length) return PALETTE[index];
  return `hsl(${Math.round((200 + index * 137.508) % 360)},55%,60%)`;
}

/** Escapes `& < > "` for HTML text and attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"]/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;',
  );
}

/** `12.34 ms` or `1.23 s`. */
export function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(2)} ms`;
}

/** Bytes in B, KiB, MiB or GiB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 ** 2) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
}
