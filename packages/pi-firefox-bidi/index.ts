// Pi loads this file (package.json "pi.extensions"); the extension lives in src/.
export { default } from "./src/extension.js";
