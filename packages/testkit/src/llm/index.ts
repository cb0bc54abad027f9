/** Scripted LLM servers: real wire formats over real HTTP, replaying a script. */

export * from "./bedrock-http1.js";
export * from "./order-form.js";
export * from "./script.js";
export * from "./scripted-llm.js";
