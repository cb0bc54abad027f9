/**
 * Gives every element an `openOrClosedShadowRoot` (null unless the runner recorded a root on the
 * host), so the page layer, which checks once per realm whether the property exists, reads the
 * roots the runner records. Defined on the sandbox's X-ray view of Element.prototype: invisible
 * to the page. Must run before the page layer installs.
 */
export function installRootsShim(): void {
  if ("openOrClosedShadowRoot" in Element.prototype) return;
  Object.defineProperty(Element.prototype, "openOrClosedShadowRoot", {
    get() {
      return null;
    },
    configurable: true,
  });
}
