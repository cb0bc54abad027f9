export * from "./job.js";
export * from "./job-file.js";
export * from "./job-input.js";
export * from "./schedule-tools.js";
export * from "./scheduled-job-manager.js";
export * from "./workflow-job.js";
