/**
 * Prints, from the tool declarations, which tools a port is offered in each mode and tier, and
 * which it is never offered. `npx tsx packages/agent/scripts/tool-table.ts [capability ...]`:
 * no arguments means a port with every capability (the runner); pass a port's capability names
 * (the add-on's `capabilities`) to see its lists.
 */
import {
  ALL_BROWSER_CAPABILITIES,
  BROWSER_CAPABILITIES,
  type BrowserCapability,
  MODES,
  TIERS,
} from "@webbrain/protocol";
import { toolNamesFor, toolsNotOffered } from "../src/index.js";

const names = process.argv.slice(2);
for (const name of names) {
  if (!Object.hasOwn(BROWSER_CAPABILITIES, name)) {
    console.error(`Unknown capability "${name}". Known: ${Object.keys(BROWSER_CAPABILITIES).join(", ")}`);
    process.exit(2);
  }
}
const capabilities = names.length === 0 ? ALL_BROWSER_CAPABILITIES : new Set(names as BrowserCapability[]);

for (const mode of MODES) {
  for (const tier of TIERS) {
    if (mode === "dev" && tier === "compact") {
      console.log(`- ${mode}/${tier}: refused (Dev needs a Mid or Full tier)`);
      continue;
    }
    const tools = toolNamesFor({ mode, tier, vision: true, capabilities });
    console.log(`- ${mode}/${tier} (${tools.length}): ${tools.join(", ")}`);
  }
}
const missing = toolsNotOffered(capabilities);
console.log(`- never offered: ${missing.length === 0 ? "none" : missing.join(", ")}`);
console.log("(screenshot only when the model takes images)");
