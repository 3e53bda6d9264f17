import { availableParallelism, totalmem } from 'node:os';
import type { ReportData } from './report-data.js';
import { escapeHtml, formatBytes } from './report-tables.js';
import type { NameCounts } from './task-follower.js';

/**
 * The dashboard's two live panels, as HTML: progress per task name (done, running, queued and
 * failed of each name, as Dask's progress panel shows task prefixes) and a gauge per OS process
 * of its memory in use (against this machine's memory) and its CPU (cores kept busy, against
 * this machine's cores), from the last `memory` and `cpu` samples in `data`. Called by the
 * dashboard on every update; the numbers are also in `data-*` attributes, for scripts and tests.
 */
export function panelsHtml(names: readonly NameCounts[], data: ReportData): string {
  return `${namesPanel(names)}${gaugesPanel(data)}`;
}

function namesPanel(names: readonly NameCounts[]): string {
  const rows = names.map((n) => {
    const share = (k: number) => (n.total > 0 ? ((k / n.total) * 100).toFixed(2) : '0');
    const bar =
      `<span class="stack"><span class="done" style="width:${share(n.done)}%"></span>` +
      `<span class="failed" style="width:${share(n.failed)}%"></span>` +
      `<span class="running" style="width:${share(n.running)}%"></span>` +
      `<span class="queued" style="width:${share(n.queued)}%"></span></span>`;
    return (
      `<tr data-progress-name="${escapeHtml(n.name)}" data-done="${n.done}" data-failed="${n.failed}" ` +
      `data-running="${n.running}" data-queued="${n.queued}" data-total="${n.total}">` +
      `<td>${escapeHtml(n.name)}</td><td>${bar}</td><td>${n.done + n.failed}/${n.total}</td>` +
      `<td>${n.running}</td><td>${n.queued}</td><td>${n.failed}</td></tr>`
    );
  });
  return (
    '<section id="progress-panel"><h2>Progress by name</h2>' +
    '<p class="hint"><i class="swatch done"></i>done <i class="swatch failed"></i>failed ' +
    '<i class="swatch running"></i>running <i class="swatch queued"></i>queued</p>' +
    '<table><tr><th>name</th><th>progress</th><th>settled</th><th>running</th><th>queued</th><th>failed</th></tr>' +
    `${rows.join('')}</table></section>`
  );
}

function gaugesPanel(data: ReportData): string {
  const memoryTotal = totalmem();
  const cores = availableParallelism();
  const workers = new Set([...data.memory, ...data.cpu].map((s) => s.worker));
  const rows = [...workers]
    .sort((a, b) => a - b)
    .map((worker) => {
      const memory = data.memory.find((s) => s.worker === worker)?.points.at(-1)?.[1];
      const cpu = data.cpu.find((s) => s.worker === worker)?.points.at(-1)?.[1];
      const memoryCell =
        memory === undefined
          ? '<td></td>'
          : `<td>${meter(memory / memoryTotal)} ${formatBytes(memory)} of ${formatBytes(memoryTotal)}</td>`;
      const cpuCell =
        cpu === undefined
          ? '<td></td>'
          : `<td>${meter(cpu / cores)} ${(cpu * 100).toFixed(0)}% of a core (${cores} cores)</td>`;
      return (
        `<tr data-gauge-worker="${worker}" data-memory="${memory ?? ''}" data-cpu="${cpu ?? ''}">` +
        `<td>worker ${worker}</td>${memoryCell}${cpuCell}</tr>`
      );
    });
  return (
    '<section id="gauge-panel"><h2>Workers</h2>' +
    '<table><tr><th>process</th><th>memory in use</th><th>CPU</th></tr>' +
    `${rows.join('')}</table></section>`
  );
}

function meter(share: number): string {
  const width = Math.min(100, Math.max(0, share * 100)).toFixed(1);
  return `<span class="meter"><span style="width:${width}%"></span></span>`;
}
