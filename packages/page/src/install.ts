/**
 * Entry of the injected script (bundled as one IIFE): installs `globalThis.__webbrainPage`
 * once per realm. A second injection into the same realm keeps the first instance, so refs and
 * pending verifications survive re-injection.
 */
import { createHandler, PAGE_LAYER_VERSION, type PageHandler } from "./handle.js";

interface InstalledPageLayer {
  handle: PageHandler;
  version: string;
}

const scope = globalThis as typeof globalThis & { __webbrainPage?: InstalledPageLayer };
if (!scope.__webbrainPage) {
  scope.__webbrainPage = { handle: createHandler(document), version: PAGE_LAYER_VERSION };
}
