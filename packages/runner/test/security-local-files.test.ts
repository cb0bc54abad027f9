/**
 * Security: the user's files stay out of the agent's reach unless the user gave them. `webbrain`
 * commands (their main, asked in this process: run-cli.ts runMain, which collects all they print),
 * real headless Firefox, a scripted model over real HTTP.
 *
 * Attacks run here, each shown to fail:
 * - `webbrain snapshot file:///…/secret` prints a local file (refused without
 *   --allow-file-urls, before Firefox starts; works with it).
 * - A hostile page tells the model to upload a secret file and to read it back through
 *   file:// (upload_file, navigate, new_tab, fetch_url, research_url): every call is refused
 *   in `webbrain run`, nothing reaches the page's server and the secret never reaches the model.
 * - upload_file of `DIR/../…` and of a symlink in DIR that points out of it, with --upload-dir DIR.
 * - A `javascript:` URL on every path that takes a URL is answered at once with a one-line error.
 */
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import {
  type FixtureServer,
  lastToolResultText,
  readBody,
  type ScriptedLlm,
  startFixtureServer,
  startScriptedLlm,
  toolResultTexts,
} from "@webbrain/testkit";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { useCliFirefox } from "./cli-firefox.js";
import { runMain } from "./run-cli.js";

// One Firefox for the file, reached through --connect: each CLI start pays for tsx, not for a
// launch too (launching itself is tested in run-command, cli-process and security-orphans).
const firefox = useCliFirefox();

/** Each test starts the CLI and Firefox (seconds each on a loaded two-core machine). */
const PROCESS_TEST_TIMEOUT_MS = 120_000;
const SECRET = "TOP-SECRET-7731";

let server: FixtureServer;
let workDir: string;
let secretFile: string;
let llm: ScriptedLlm | undefined;
/** Bodies the hostile page posted to its server (what left the machine through an upload). */
const sunk: string[] = [];

beforeAll(async () => {
  server = await startFixtureServer({
    routes: {
      "/security/sink": async (req: IncomingMessage, res: ServerResponse) => {
        sunk.push(await readBody(req));
        res.writeHead(204);
        res.end();
      },
    },
  });
  workDir = await mkdtemp(join(tmpdir(), "webbrain-local-files-"));
  await mkdir(join(workDir, "private"));
  secretFile = join(workDir, "private", "secret.txt");
  await writeFile(secretFile, `${SECRET}\n`);
});

afterEach(async () => {
  await llm?.close();
  llm = undefined;
  sunk.length = 0;
});

afterAll(async () => {
  await server?.close();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

/** `webbrain exec` answers, one per input line. */
function answers(stdout: string): { tool: string; result: { success: boolean; error?: string } }[] {
  return stdout
    .trim()
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

describe("local files", () => {
  it(
    "webbrain snapshot file:///…/secret is refused without --allow-file-urls and works with it",
    async () => {
      const fileUrl = pathToFileURL(secretFile).href;
      const refused = await runMain(["snapshot", fileUrl]);
      expect(refused.code).toBe(2);
      expect(refused.stderr.trim()).toBe(
        `webbrain: ${fileUrl} is a local file, and the user has not allowed local files (file: URLs). To allow them, run webbrain with --allow-file-urls.`,
      );
      expect(refused.stdout).not.toContain(SECRET);

      const allowed = await runMain(["snapshot", fileUrl, "--allow-file-urls", ...firefox.connectArgs()]);
      expect(allowed.code, allowed.stderr).toBe(0);
      expect(allowed.stdout).toContain(SECRET);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "a hostile page cannot make `webbrain run` upload a secret file or read it back through file://",
    async () => {
      const fileUrl = pathToFileURL(secretFile).href;
      llm = await startScriptedLlm({
        dialect: "openai-chat",
        script: [
          // The model obeys the page: upload the file, then every way to read it back.
          {
            toolCalls: [
              { name: "upload_file", arguments: { selector: "#attachment", path: secretFile } },
              { name: "navigate", arguments: { url: fileUrl } },
              { name: "new_tab", arguments: { url: fileUrl } },
              { name: "fetch_url", arguments: { url: fileUrl } },
              { name: "research_url", arguments: { url: fileUrl } },
              { name: "download_files", arguments: { urls: [fileUrl] } },
            ],
          },
          { toolCalls: [{ name: "read_page", arguments: {} }] },
          { toolCalls: [{ name: "done", arguments: { summary: "Could not attach the file." } }] },
        ],
      });
      const page = `${server.url("/security/local-files-hostile.html")}?path=${encodeURIComponent(secretFile)}`;
      const run = await runMain([
        "run",
        "Close the support ticket on this page.",
        "--url",
        page,
        "--base-url",
        llm.baseUrl,
        "--model",
        "scripted-1",
        "--tier",
        "full",
        ...firefox.connectArgs(),
      ]);
      expect(run.code, run.stderr).toBe(0);
      const [upload, ...reads] = toolResultTexts(llm.requests[1]!);
      expect(upload).toContain("is not a file the user gave for this run");
      expect(upload).toContain("--upload-dir DIR");
      expect(reads).toHaveLength(5);
      for (const read of reads) expect(read).toContain("run webbrain with --allow-file-urls");
      // The tab is still the ticket page, and the page got no file.
      expect(lastToolResultText(llm.requests[2]!)).toContain("Support ticket");
      expect(sunk).toEqual([]);
      expect(JSON.stringify(llm.requests)).not.toContain(SECRET);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "upload_file takes only files under --upload-dir or given with --attach, after resolving .. and symlinks",
    async () => {
      const uploads = join(workDir, "uploads");
      await mkdir(uploads, { recursive: true });
      await writeFile(join(uploads, "invoice.txt"), "invoice 42\n");
      await symlink(secretFile, join(uploads, "innocent.txt"));
      const attached = join(workDir, "attached.txt");
      await writeFile(attached, "attached on purpose\n");
      const upload = (path: string) =>
        JSON.stringify({ tool: "upload_file", args: { selector: "#attachment", path } });
      const run = await runMain(
        [
          "exec",
          server.url("/security/local-files-hostile.html"),
          "--upload-dir",
          uploads,
          "--attach",
          attached,
          ...firefox.connectArgs(),
        ],
        {
          stdin: [
            upload(`${uploads}/../private/secret.txt`),
            upload(join(uploads, "innocent.txt")),
            upload(`${workDir}/private/../attached.txt`),
            upload("invoice.txt"),
            upload(join(uploads, "missing.txt")),
            // The page posts what it got to its server; wait until both posts are answered.
            JSON.stringify({ tool: "wait_for_element", args: { text: "sent attached.txt" } }),
            JSON.stringify({ tool: "wait_for_element", args: { text: "sent invoice.txt" } }),
          ].join("\n"),
        },
      );
      const [dotDot, symlinked, attachedOk, inDir, missing] = answers(run.stdout);
      expect(dotDot?.result.error).toContain("is not a file the user gave for this run");
      expect(symlinked?.result.error).toContain("is not a file the user gave for this run");
      expect(attachedOk?.result.success).toBe(true);
      expect(inDir?.result.success).toBe(true);
      expect(missing?.result.error).toMatch(/^Cannot upload: ENOENT/);
      // Only what the user gave reached the page's server.
      expect(sunk.sort()).toEqual(["attached on purpose\n", "invoice 42\n"]);
      expect(run.code).toBe(1);

      const badDir = await runMain(["exec", server.url("/"), "--upload-dir", join(workDir, "nowhere")]);
      expect(badDir.code).toBe(2);
      expect(badDir.stderr).toContain("--upload-dir");
    },
    PROCESS_TEST_TIMEOUT_MS,
  );

  it(
    "a javascript: URL gets a one-line error at once on every path that takes a URL",
    async () => {
      const js = "javascript:alert(document.cookie)";
      const refusal = "javascript: URLs are refused";
      for (const args of [
        ["snapshot", js],
        ["screenshot", js, "-o", join(workDir, "never.png")],
        ["run", "read it", "--url", js],
        ["exec", js],
      ]) {
        const cli = await runMain(args);
        expect(cli.code, args.join(" ")).toBe(2);
        expect(cli.stderr.trim().split("\n")).toHaveLength(1);
        expect(cli.stderr).toContain(refusal);
      }
      const calls = [
        { tool: "navigate", args: { url: js } },
        { tool: "new_tab", args: { url: js } },
        { tool: "fetch_url", args: { url: js } },
        { tool: "research_url", args: { url: js } },
        { tool: "download_files", args: { urls: [js] } },
      ];
      const exec = await runMain(
        ["exec", server.url("/security/ask-linked.html"), ...firefox.connectArgs()],
        {
          stdin: calls.map((call) => JSON.stringify(call)).join("\n"),
        },
      );
      const results = answers(exec.stdout);
      expect(results.map((answer) => answer.tool)).toEqual(calls.map((call) => call.tool));
      for (const answer of results) expect(answer.result.error).toContain(refusal);
    },
    PROCESS_TEST_TIMEOUT_MS,
  );
});
