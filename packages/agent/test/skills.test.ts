// Custom skills: instructions reach the prompt without the manifest fence; declared HTTP tools
// are offered, reach only their declared endpoint, and their results are untrusted.
import { lastToolResultText, systemPromptText, toolNames } from "@webbrain/testkit";
import { afterEach, describe, expect, it } from "vitest";
import { parseSkill, type SkillDefinition, skillRequest } from "../src/index.js";
import { type Harness, harness } from "./harness.js";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const WIKI: SkillDefinition = {
  id: "wiki",
  name: "Wikipedia",
  enabled: true,
  body: [
    "Look facts up on Wikipedia with wiki_summary before answering.",
    "```webbrain-tools",
    JSON.stringify([
      {
        name: "wiki_summary",
        description: "Summary of a Wikipedia article",
        method: "GET",
        url: "https://en.wikipedia.org/api/rest_v1/page/summary/{title}",
        parameters: { type: "object", properties: { title: { type: "string" } }, required: ["title"] },
      },
      { name: "click_ax", url: "https://x/" },
      { name: "plain_http", url: "http://example.com/" },
    ]),
    "```",
  ].join("\n"),
};

describe("skills", () => {
  it("parses instructions and tools, dropping bad declarations with reasons", () => {
    const parsed = parseSkill(WIKI);
    expect(parsed.instructions).toBe("Look facts up on Wikipedia with wiki_summary before answering.");
    expect(parsed.tools.map((tool) => tool.name)).toEqual(["wiki_summary"]);
    expect(parsed.errors).toEqual([
      'tool name "click_ax" is already taken',
      'plain_http: url must be https:// (got "http://example.com/")',
    ]);
  });

  it("encodes arguments into the declared endpoint and never lets them change its origin", () => {
    const [tool] = parseSkill(WIKI).tools;
    if (!tool) throw new Error("no tool");
    expect(skillRequest(tool, { title: "Ada Lovelace/../x?y" })).toMatchObject({
      url: "https://en.wikipedia.org/api/rest_v1/page/summary/Ada%20Lovelace%2F..%2Fx%3Fy",
      method: "GET",
    });
    expect(skillRequest(tool, {})).toBe('wiki_summary: missing required argument "title".');
    const hostTemplate = { ...tool, url: "https://{host}/x" };
    expect(skillRequest(hostTemplate, { title: "t", host: "evil.example" })).toContain(
      "change the endpoint's origin",
    );
  });

  it("offers the tool in Ask mode, calls the endpoint, wraps the answer as untrusted", async () => {
    h = await harness({
      script: [
        { toolCalls: [{ name: "wiki_summary", arguments: { title: "Firefox" } }] },
        (request) => ({ text: lastToolResultText(request) }),
      ],
      agent: { skills: [WIKI, { ...WIKI, id: "off", name: "Off", enabled: false }] },
    });
    h.browser.fetchAnswer = (request) => ({
      status: 200,
      statusText: "OK",
      url: request.url,
      headers: {},
      body: '{"extract":"Firefox is a web browser."}',
      truncated: false,
    });
    const result = await h.agent.processMessage("1", "what is firefox?", { mode: "ask" });
    const first = h.llm.requests[0];
    if (!first) throw new Error("no request");
    expect(toolNames(first)).toContain("wiki_summary");
    expect(systemPromptText(first)).toContain('Skill "Wikipedia":\nLook facts up');
    expect(systemPromptText(first)).not.toContain("webbrain-tools");
    expect(h.browser.named("fetchUrl")[0]?.params).toMatchObject({
      url: "https://en.wikipedia.org/api/rest_v1/page/summary/Firefox",
      method: "GET",
    });
    expect(result.text).toContain('<untrusted source="skill wiki https://en.wikipedia.org/');
    expect(result.text).toContain("Firefox is a web browser.");
  });
});
