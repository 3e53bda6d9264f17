// Imported by tasks.mjs: functions loaded with everywhere() may use their module's imports.
export const double = (x) => x * 2;
