/**
 * Runs a skill's declared tool for the executor: `http` tools (read-only GET/POST) and
 * `httpDownloadJob` tools (create a provider job, poll its same-origin status URL until the
 * file is ready, save it through the browser's Downloads, delete the provider job).
 *
 * Invariants:
 * - Importing the skill was the trust boundary: an http tool asks no permission per call.
 *   A download job still goes through the permission gate's `download` capability, and runs
 *   only in action modes (Ask refuses it here too, not only by the tool list).
 * - The provider job is cleaned up whatever happened after it was created (saved, failed,
 *   timed out, stopped).
 * - Results are wrapped as untrusted unless the skill declared `resultPolicy: "trusted"`.
 */
import type { Mode } from "@webbrain/protocol";
import type { GateDecision, PermissionRequest } from "../guards/permission-gate.js";
import { originOf } from "../guards/permission-gate.js";
import type { BrowserPort, JsonValue } from "../tools/browser-port.js";
import { agentResult, type ToolContent, untrustedResult } from "../tools/tool-result.js";
import type { SkillTool } from "./skills.js";
import { buildSkillRequest, runHttpSkillTool, SKILL_TIMEOUT_MS, type SkillHttp } from "./skills-http.js";

export interface SkillRunContext {
  http: SkillHttp;
  mode: Mode;
  activeTabUrl?: string;
  signal?: AbortSignal;
  /** Downloads for download-job tools (the port's `download`). */
  port?: Pick<BrowserPort, "download">;
  /** The permission gate's check, for the `download` capability. */
  checkPermission?: (request: PermissionRequest) => Promise<GateDecision>;
  /** Waits between status polls; tests pass a fast one. */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

function wrap(
  tool: SkillTool,
  ok: boolean,
  source: string,
  result: Record<string, JsonValue | undefined>,
): ToolContent {
  const clean = Object.fromEntries(
    Object.entries(result).filter(([, value]) => value !== undefined),
  ) as Record<string, JsonValue>;
  if (tool.resultPolicy === "trusted")
    return agentResult(tool.name, ok, ok ? "" : String(result.error ?? ""), clean);
  return untrustedResult(tool.name, `skill ${tool.skillId} ${source}`, { success: ok, ...clean });
}

export async function runSkillTool(
  tool: SkillTool,
  args: Record<string, unknown>,
  context: SkillRunContext,
): Promise<ToolContent> {
  if (!tool.modes.includes(context.mode)) {
    return agentResult(
      tool.name,
      false,
      `${tool.name} is not available in ${context.mode} mode${tool.kind === "httpDownloadJob" ? " (it saves files: switch to Act)" : ""}.`,
    );
  }
  if (tool.kind === "httpDownloadJob") return runDownloadJob(tool, args, context);
  const result = await runHttpSkillTool(tool, args, context);
  if (!result.ok && result.status === undefined)
    return agentResult(tool.name, false, result.error ?? "failed");
  return wrap(tool, result.ok, result.url ?? tool.endpoint, {
    status: result.status,
    truncated: result.truncated,
    body: result.body,
    error: result.error,
  });
}

function fillJob(template: string, idField: string, jobId: string): string {
  return template.replaceAll(`{${idField}}`, encodeURIComponent(jobId));
}

async function json(
  http: SkillHttp,
  url: string,
  method: "GET" | "POST",
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const response = await http.send(
    { url, method, headers: { accept: "application/json" }, maxChars: 64_000, timeoutMs: SKILL_TIMEOUT_MS },
    signal,
  );
  if (response.status < 200 || response.status >= 300) throw new Error(`HTTP ${response.status} from ${url}`);
  const parsed: unknown = JSON.parse(response.body);
  return parsed && typeof parsed === "object" ? (parsed as Record<string, unknown>) : {};
}

async function runDownloadJob(
  tool: SkillTool,
  args: Record<string, unknown>,
  context: SkillRunContext,
): Promise<ToolContent> {
  const job = tool.job;
  if (!job) return agentResult(tool.name, false, `${tool.name}: the skill declares no job endpoints.`);
  if (!context.port?.download) {
    return agentResult(tool.name, false, `${tool.name}: this browser cannot save downloads here.`);
  }
  const request = buildSkillRequest(tool, args, context.activeTabUrl);
  if (typeof request === "string") return agentResult(tool.name, false, request);
  if (context.checkPermission) {
    const decision = await context.checkPermission({
      capability: "download",
      origin: originOf(tool.endpoint),
      tool: tool.name,
      detail: `save a file from ${originOf(tool.endpoint)} (skill ${tool.skillId})`,
    });
    if (!decision.allowed) return agentResult(tool.name, false, decision.message);
  }
  const sleep = context.sleep ?? defaultSleep;
  const now = context.now ?? (() => Date.now());
  let created: Record<string, unknown>;
  try {
    const response = await context.http.send(request, context.signal);
    if (response.status < 200 || response.status >= 300) {
      return agentResult(
        tool.name,
        false,
        `The provider refused the job: HTTP ${response.status} ${response.statusText}.`,
      );
    }
    created = JSON.parse(response.body) as Record<string, unknown>;
  } catch (error) {
    return agentResult(tool.name, false, `Creating the provider job failed: ${(error as Error).message}`);
  }
  const jobId = created[job.idField];
  if (typeof jobId !== "string" && typeof jobId !== "number") {
    return agentResult(tool.name, false, `The provider's answer has no "${job.idField}"; nothing was saved.`);
  }
  const id = String(jobId);
  try {
    const deadline = now() + job.timeoutMs;
    let status: Record<string, unknown> = created;
    for (;;) {
      const state = String(status.status ?? status.state ?? "");
      if (/^(done|complete|completed|ready|succeeded|finished)$/i.test(state)) break;
      if (/^(failed|error|cancelled|canceled)$/i.test(state)) {
        const why = typeof status.error === "string" ? status.error : state;
        return wrap(tool, false, tool.endpoint, { error: `The provider's job failed: ${why}`, job_id: id });
      }
      if (now() >= deadline) {
        return agentResult(
          tool.name,
          false,
          `The provider's job did not finish within ${job.timeoutMs / 1000} s.`,
        );
      }
      context.signal?.throwIfAborted();
      await sleep(job.pollIntervalMs);
      status = await json(context.http, fillJob(job.statusEndpoint, job.idField, id), "GET", context.signal);
    }
    const fileUrl = fillJob(job.fileEndpoint, job.idField, id);
    const filename = typeof args.filename === "string" && args.filename !== "" ? args.filename : undefined;
    const saved = await context.port.download(
      fileUrl,
      filename,
      context.signal ? { signal: context.signal } : {},
    );
    return wrap(tool, true, fileUrl, {
      downloadId: saved.id,
      filename: saved.filename,
      bytes: saved.bytes,
      state: saved.state,
    });
  } catch (error) {
    return agentResult(tool.name, false, `The download job failed: ${(error as Error).message}`);
  } finally {
    if (job.cleanupEndpoint) {
      // Best effort: the provider's job is temporary anyway; a failed cleanup must not hide the result.
      const cleanup = fillJob(job.cleanupEndpoint, job.idField, id);
      await context.http
        .send({ url: cleanup, method: "DELETE", headers: {}, maxChars: 1_000, timeoutMs: 10_000 })
        .catch(() => undefined);
    }
  }
}
