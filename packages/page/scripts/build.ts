/** `npm run build -w packages/page`: writes dist/webbrain-page.js (the injectable script). */
import { mkdir, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { buildPageScript } from "../src/bundle.js";

const outDir = fileURLToPath(new URL("../dist/", import.meta.url));
const script = await buildPageScript();
await mkdir(outDir, { recursive: true });
const outFile = `${outDir}webbrain-page.js`;
await writeFile(`${outFile}.tmp`, script);
const { rename } = await import("node:fs/promises");
await rename(`${outFile}.tmp`, outFile);
console.log(`page layer: ${outFile} (${(script.length / 1024).toFixed(1)} KiB)`);
