export * from "./catalog.js";
export * from "./contract.js";
export * from "./helpers.js";
export * from "./page-calls.js";
