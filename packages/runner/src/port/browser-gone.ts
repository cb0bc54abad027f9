/**
 * The agent's port over a BiDi connection that may die. Once the connection is closed (Firefox
 * crashed or was killed, the socket dropped), every port call fails with the agent's typed
 * `browser_unavailable` error, which ends the run at once (agent.ts), instead of "the browser
 * failed, try again", which the model would answer with more calls that cannot work.
 *
 * A Proxy, like the agent's decoratePort: methods the port gains later are covered too, and the
 * real port stays the receiver of every call (it keeps state in #private fields).
 */
import { type BrowserPort, browserUnavailable } from "@webbrain/agent";
import type { BidiClient } from "@webbrain/bidi";

export function browserGoneMessage(reason: Error | undefined): string {
  const why = reason ? `: ${reason.message}` : "";
  return `Firefox went away while the command ran${why}. Nothing further was done; run the command again.`;
}

export function failWhenBrowserGone<P extends BrowserPort>(port: P, client: BidiClient): P {
  const gone = () => browserUnavailable(browserGoneMessage(client.closeReason));
  const rethrow = (error: unknown): never => {
    throw client.closed ? gone() : error;
  };
  return new Proxy(port, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        if (client.closed) throw gone();
        let out: unknown;
        try {
          out = value.apply(target, args);
        } catch (error) {
          rethrow(error);
        }
        return out instanceof Promise ? out.catch(rethrow) : out;
      };
    },
  });
}
