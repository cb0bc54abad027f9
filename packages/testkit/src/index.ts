export * from "./llm/index.js";
