/**
 * Settings -> Protected messaging routes: the recipient guard's routes (spec 000). The built-in
 * ones are listed read-only; the user adds a site's conversation pages (host, path prefix, a
 * label) and removes their own. On a protected route nothing that may send is dispatched unless
 * the open conversation is the recipient the user named, and saved workflows never send there.
 *
 * Invariants:
 * - Only a line the agent's parser accepts is stored, in the same `host /path label` form
 *   `webbrain run --messaging-route` takes (shared/messaging-routes.ts reads it).
 * - A route already protected (built in or the user's, same host and path) is not added twice.
 * - Another page changing the list (a second settings tab) is followed, so a change here never
 *   writes back a stale copy.
 */
import {
  type MessagingRoute,
  PROTECTED_MESSAGING_ROUTES,
  parseMessagingRoutes,
  RouteListError,
} from "@webbrain/agent";
import { t } from "../shared/i18n.js";
import {
  MESSAGING_ROUTES_KEY,
  routeLine,
  sameRoute,
  storedRouteLines,
  userRoutes,
} from "../shared/messaging-routes.js";

function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: { className?: string; text?: string; id?: string } = {},
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.className) node.className = props.className;
  if (props.text !== undefined) node.textContent = props.text;
  if (props.id) node.id = props.id;
  return node;
}

function labelled(
  id: string,
  text: string,
  placeholder: string,
): { box: HTMLDivElement; input: HTMLInputElement } {
  const box = element("div", { className: "field" });
  const label = element("label", { text });
  label.htmlFor = id;
  const input = element("input", { id });
  input.autocomplete = "off";
  input.spellcheck = false;
  input.placeholder = placeholder;
  box.append(label, input);
  return { box, input };
}

/** A host as a person may paste it (a whole URL, a trailing slash) made the bare host[:port]. */
function bareHost(text: string): string {
  const trimmed = text.trim();
  try {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) return new URL(trimmed).host;
  } catch {
    // Not a URL: judged as typed below.
  }
  return trimmed.replace(/\/+$/, "");
}

async function readLines(): Promise<string[]> {
  return storedRouteLines((await browser.storage.local.get(MESSAGING_ROUTES_KEY))[MESSAGING_ROUTES_KEY]);
}

async function writeLines(lines: readonly string[]): Promise<void> {
  await browser.storage.local.set({ [MESSAGING_ROUTES_KEY]: lines.join("\n") });
}

export function mountMessagingRoutesSection(parent: HTMLElement): void {
  const section = element("section", { id: "messaging-routes" });
  section.setAttribute("aria-labelledby", "routes-heading");
  const list = element("ul", { id: "route-list", className: "grant-list" });
  const host = labelled("route-host", t("routeHost"), "chat.example.com");
  const path = labelled("route-path", t("routePath"), "/messages");
  const label = labelled("route-label", t("routeLabel"), "Example chat");
  const add = element("button", { id: "route-add", className: "primary", text: t("addButton") });
  add.type = "button";
  const row = element("div", { className: "field-row route-add" });
  row.append(host.box, path.box, label.box);
  const error = element("p", { id: "route-error", className: "errors" });
  error.setAttribute("role", "alert");
  section.append(
    element("h2", { id: "routes-heading", text: t("routesHeading") }),
    element("p", { className: "hint", text: t("routesIntro") }),
    list,
    row,
    add,
    error,
  );
  parent.append(section);

  function routeRow(route: MessagingRoute, builtIn: boolean): HTMLLIElement {
    const li = element("li");
    li.dataset.route = `${route.host}${route.pathPrefix}`;
    const what = element("span", { className: "g-text" });
    const name = element("span", { className: "g-cap", text: route.label });
    what.append(name, ` · ${route.host}${route.pathPrefix}`);
    li.append(what);
    if (builtIn) {
      li.append(element("span", { className: "hint route-builtin", text: t("routeBuiltIn") }));
      return li;
    }
    const remove = element("button", { className: "quiet", text: t("removeButton") });
    remove.type = "button";
    remove.setAttribute("aria-label", t("routeRemove", route.label));
    remove.addEventListener("click", () => {
      void removeRoute(route).catch(showError);
    });
    li.append(remove);
    return li;
  }

  async function render(): Promise<void> {
    const own = userRoutes((await browser.storage.local.get(MESSAGING_ROUTES_KEY))[MESSAGING_ROUTES_KEY]);
    list.replaceChildren(
      ...PROTECTED_MESSAGING_ROUTES.map((route) => routeRow(route, true)),
      ...own.map((route) => routeRow(route, false)),
    );
  }

  function showError(problem: unknown): void {
    error.textContent = problem instanceof Error ? problem.message : String(problem);
  }

  async function removeRoute(route: MessagingRoute): Promise<void> {
    const lines = await readLines();
    await writeLines(
      lines.filter((line) => {
        const [parsed] = userRoutes(line);
        return !parsed || !sameRoute(parsed, route);
      }),
    );
    await render();
  }

  async function addRoute(): Promise<void> {
    error.textContent = "";
    const hostText = bareHost(host.input.value);
    const pathText = path.input.value.trim() || "/";
    if (!hostText || /[\s/]/.test(hostText)) throw new Error(t("routeNeedsHost"));
    if (!pathText.startsWith("/") || /\s/.test(pathText)) throw new Error(t("routeNeedsPath"));
    let route: MessagingRoute;
    try {
      [route] = parseMessagingRoutes(`${hostText} ${pathText} ${label.input.value.trim()}`) as [
        MessagingRoute,
      ];
    } catch (problem) {
      if (problem instanceof RouteListError) throw new Error(t("routeNeedsPath"));
      throw problem;
    }
    const lines = await readLines();
    const known = [...PROTECTED_MESSAGING_ROUTES, ...userRoutes(lines.join("\n"))];
    if (known.some((other) => sameRoute(other, route)))
      throw new Error(t("routeAlreadyProtected", route.host + route.pathPrefix));
    await writeLines([...lines, routeLine(route)]);
    host.input.value = "";
    path.input.value = "";
    label.input.value = "";
    await render();
  }

  add.addEventListener("click", () => {
    void addRoute().catch(showError);
  });
  browser.storage.onChanged.addListener((changes, area) => {
    if (area === "local" && MESSAGING_ROUTES_KEY in changes) void render().catch(showError);
  });
  void render().catch(showError);
}
