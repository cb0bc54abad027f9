export * from "./catalog.js";
export * from "./contract.js";
export * from "./example.js";
