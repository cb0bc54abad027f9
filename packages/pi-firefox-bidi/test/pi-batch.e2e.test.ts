/**
 * End to end through the real `pi` CLI, a scripted OpenAI-compatible server and
 * real headless Firefox: the model's batch navigates, evaluates through a
 * reference, waits for an event and captures a screenshot big enough to be
 * spooled; the test reads what the model received in the next request.
 */
import { existsSync, readFileSync } from "node:fs";
import {
  lastToolResultText,
  type RecordedRequest,
  startScriptedLlm,
  systemPromptText,
  toolNames,
} from "@webbrain/testkit";
import { describe, expect, it } from "vitest";
import {
  makeWorkspace,
  payloadOf,
  processesUsing,
  runPrint,
  tmpEntries,
  usePiTestResources,
} from "./pi-cli.js";

/** A page whose random pixels make a PNG far over the 256 KiB inline limit. */
const NOISY_PAGE =
  "data:text/html,<title>Fixture page</title><canvas id=c width=400 height=400></canvas><script>" +
  "const x=document.getElementById('c').getContext('2d');const d=x.createImageData(400,400);" +
  "for(let i=0;i<d.data.length;i++)d.data[i]=Math.random()*256|0;x.putImageData(d,0,0)</script>";

const res = usePiTestResources();

describe("firefox_bidi through the pi CLI", () => {
  it("runs a batch with references, a wait and a spooled screenshot, and the model receives it", async () => {
    let spoolSeenDuringRun: { exists: boolean; json: unknown } | undefined;
    res.llm = await startScriptedLlm({
      dialect: "openai-chat",
      script: [
        (request: RecordedRequest) => {
          expect(toolNames(request)).toContain("firefox_bidi");
          // The bundled skill is offered to the model.
          expect(systemPromptText(request)).toContain("firefox-bidi");
          return {
            toolCalls: [
              {
                name: "firefox_bidi",
                arguments: {
                  frames: [
                    { id: 1, method: "session.subscribe", params: { events: ["browsingContext.load"] } },
                    { id: 2, method: "browsingContext.getTree", params: {} },
                    {
                      id: 3,
                      method: "browsingContext.navigate",
                      params: {
                        context: "{{2.result.contexts.0.context}}",
                        url: NOISY_PAGE,
                        wait: "complete",
                      },
                    },
                    {
                      id: 4,
                      method: "script.evaluate",
                      params: {
                        expression: "document.title + ' in {{2.result.contexts.0.context}}'",
                        target: { context: "{{2.result.contexts.0.context}}" },
                        awaitPromise: false,
                      },
                    },
                    {
                      id: 5,
                      method: "browsingContext.captureScreenshot",
                      params: { context: "{{2.result.contexts.0.context}}", origin: "document" },
                    },
                  ],
                  wait: "browsingContext.load",
                },
              },
            ],
          };
        },
        (request: RecordedRequest) => {
          const payload = payloadOf(request);
          const spooled = payload.frames[4]?.spooled;
          if (spooled) {
            spoolSeenDuringRun = {
              exists: existsSync(spooled.path),
              json: JSON.parse(readFileSync(spooled.path, "utf8")),
            };
          }
          return { text: "done" };
        },
      ],
    });
    res.ws = makeWorkspace(res.llm.baseUrl);
    const run = await runPrint(res.ws, "Open the fixture page", ["--firefox"]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain("done");

    const payload = payloadOf(res.llm.requests[1]);
    expect(payload.session).toMatchObject({ browser: "firefox", headless: true, launchedThisCall: true });
    expect(payload.frames.map((f) => [f.id, f.status])).toEqual([
      [1, "ok"],
      [2, "ok"],
      [3, "ok"],
      [4, "ok"],
      [5, "ok"],
    ]);
    const contexts = payload.frames[1]?.response?.result?.contexts as { context: string }[] | undefined;
    const context = contexts?.[0]?.context;
    expect(context).toEqual(expect.any(String));
    expect(payload.frames[3]?.response?.result).toMatchObject({
      type: "success",
      result: { type: "string", value: `Fixture page in ${context}` },
    });
    expect(payload.wait?.status).toBe("matched");
    expect(payload.wait?.matched[0]).toMatchObject({ method: "browsingContext.load", params: { context } });

    const spooled = payload.frames[4]?.spooled;
    expect(spooled?.bytes).toBeGreaterThan(256 * 1024);
    expect(spoolSeenDuringRun?.exists).toBe(true);
    const onDisk = spoolSeenDuringRun?.json as { type: string; id: number; result: { data: string } };
    expect(onDisk).toMatchObject({ type: "success", id: 5 });
    expect(Buffer.from(onDisk.result.data, "base64").subarray(1, 4).toString("latin1")).toBe("PNG");
    expect(Buffer.byteLength(lastToolResultText(res.llm.requests[1]!), "utf8")).toBeLessThan(1024 * 1024);

    // Session shutdown closed Firefox and removed the spool and the profile.
    expect(processesUsing(res.ws)).toEqual([]);
    expect(tmpEntries(res.ws)).toEqual([]);
    expect(existsSync(spooled!.path)).toBe(false);
  }, 180_000);
});
