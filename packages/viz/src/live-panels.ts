import { availableParallelism, totalmem } from 'node:os';
import type { Stats } from '@dtask/core';
import type { ReportData } from './report-data.js';
import { escapeHtml, formatBytes } from './report-tables.js';
import type { NameCounts } from './task-follower.js';

/**
 * The dashboard's live panels, as HTML: progress per task name (done, running, queued and
 * failed of each name, as Dask's progress panel shows task prefixes), a gauge per OS process
 * of its memory in use (against this machine's memory) and its CPU (cores kept busy, against
 * this machine's cores), from the last `memory` and `cpu` samples in `data`, and, given the
 * context's `stats()`, utilisation per processor. Called by the dashboard on every update; the
 * numbers are also in `data-*` attributes, for scripts and tests.
 */
export function panelsHtml(names: readonly NameCounts[], data: ReportData, stats?: Stats): string {
  return `${namesPanel(names)}${gaugesPanel(data)}${stats === undefined ? '' : utilisationPanel(stats)}`;
}

/** Per processor: busy fraction, runs, and run and wait percentiles (Piscina's utilisation). */
function utilisationPanel(stats: Stats): string {
  const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
  const rows = stats.processors.map((p) => {
    const r = p.runMs;
    const w = p.waitMs;
    return (
      `<tr data-util-processor="${escapeHtml(p.id)}" data-tasks="${p.tasks}" data-busy="${p.busyFraction}" ` +
      `data-run-p50="${r.p50}" data-run-p99="${r.p99}" data-wait-p50="${w.p50}" data-wait-p99="${w.p99}">` +
      `<td>${escapeHtml(p.id)}${p.removed ? ' (removed)' : ''}</td>` +
      `<td>${meter(p.busyFraction)} ${(p.busyFraction * 100).toFixed(0)}%</td><td>${p.tasks}</td>` +
      `<td>${ms(r.p50)} / ${ms(r.p90)} / ${ms(r.p99)} / ${ms(r.max)}</td>` +
      `<td>${ms(w.p50)} / ${ms(w.p90)} / ${ms(w.p99)} / ${ms(w.max)}</td></tr>`
    );
  });
  const t = stats.tasks;
  return (
    '<section id="utilisation-panel"><h2>Utilisation</h2>' +
    `<p class="hint">since the context began (${(stats.elapsedMs / 1000).toFixed(1)} s): ` +
    `${t.finished} finished, ${t.failed} failed, ${t.unfinished} unfinished</p>` +
    '<table><tr><th>processor</th><th>busy</th><th>runs</th><th>run ms p50 / p90 / p99 / max</th>' +
    `<th>wait ms p50 / p90 / p99 / max</th></tr>${rows.join('')}</table></section>`
  );
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
