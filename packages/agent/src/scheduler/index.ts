export * from "./job.js";
export * from "./job-input.js";
export * from "./scheduled-job-manager.js";
