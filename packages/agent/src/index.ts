/** @webbrain/agent: the browser-free agent core. */
export * from "./browser-port.js";
export * from "./store.js";
