export * from "./catalog.js";
export * from "./contract.js";
export * from "./details-check.js";
export * from "./example.js";
export * from "./helpers.js";
export * from "./page-calls.js";
export { DownloadReport, NewTabReport } from "./result-shapes.js";
export * from "./tool-details.js";
