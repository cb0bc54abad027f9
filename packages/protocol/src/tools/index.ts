export * from "./catalog.js";
export * from "./contract.js";
