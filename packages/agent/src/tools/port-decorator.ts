/**
 * A BrowserPort that is `inner` with a few methods replaced: the trace recorder and the
 * recipient guard sit in front of a port this way. A Proxy, so methods BrowserPort gains later
 * pass through untouched, and the real port is the receiver of every other call (ports keep
 * state in #private fields, which a proxy as `this` could not reach).
 */
import type { BrowserPort } from "./browser-port.js";

export function decoratePort<P extends BrowserPort>(inner: P, overrides: Partial<BrowserPort>): P {
  return new Proxy(inner, {
    get(target, prop) {
      if (Object.hasOwn(overrides, prop)) return (overrides as Record<string | symbol, unknown>)[prop];
      const value = Reflect.get(target, prop);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}
