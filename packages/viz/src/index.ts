export { type DashboardOptions, type DashboardPlugin, dashboard } from './dashboard.js';
export { phase } from './phase.js';
export type { PhaseFigures } from './phase-figures.js';
export { countProgress, type Progress, type ProgressOptions, progress } from './progress.js';
export {
  formatProgress,
  type ProgressBarOptions,
  type ProgressStream,
  progressBar,
} from './progress-bar.js';
export type { BarStatus, ReportData, ReportSummary } from './report-data.js';
export { summarise } from './report-data.js';
export type { NameCounts, TaskCounts } from './task-follower.js';
export { type WriteReportOptions, writeReport } from './write-report.js';
