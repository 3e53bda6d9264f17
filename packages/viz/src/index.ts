export type { BarStatus, ReportData, ReportSummary } from './report-data.js';
export { summarise } from './report-data.js';
export { type WriteReportOptions, writeReport } from './write-report.js';
