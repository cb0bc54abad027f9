/** Small-app tasks: an email inbox, a social feed, a search engine, a contact book. */
import {
  actions,
  type Call,
  click,
  clickedRefs,
  clickSubmit,
  named,
  type Policy,
  sequence,
  type Tree,
  type TreeItem,
  textboxes,
  type,
} from "./tree.js";

const hasClass = (i: TreeItem, cls: RegExp) => cls.test(/class="([^"]*)"/.exec(i.rest)?.[1] ?? "");

/** The inbox row for a sender (its name starts the row) and the controls under it. */
function emailRow(tree: Tree, sender: string): { row: TreeItem; under: TreeItem[] } | undefined {
  const index = tree.lines.findIndex(
    (l) => l.ref !== undefined && l.role === "clickable" && l.name.startsWith(`${sender} `),
  );
  const row = tree.lines[index];
  if (!row || row.ref === undefined) return undefined;
  return { row: row as TreeItem, under: tree.block(index).filter((l): l is TreeItem => l.ref !== undefined) };
}

/** Star or delete the sender's email by the icon in its row. */
export function emailIcon(sender: string, icon: "star" | "trash"): Policy {
  return sequence([
    (tree) => {
      const target = emailRow(tree, sender)?.under.find((i) => hasClass(i, new RegExp(`\\b${icon}\\b`)));
      return target ? click(target) : undefined;
    },
  ]);
}

/** Open the sender's email, press reply or forward, fill the one field it asks for, send. */
export function emailRespond(sender: string, how: "reply" | "forward", text: string): Policy {
  return sequence([
    (tree) => {
      const row = emailRow(tree, sender);
      return row ? click(row.row) : undefined;
    },
    (tree) => {
      const b =
        tree.items.find((i) => hasClass(i, new RegExp(`\\b(email-)?${how}\\b`))) ?? named(tree.items, how);
      return b ? click(b) : undefined;
    },
    (tree) => {
      const fields = textboxes(tree.items);
      // forward asks who to (the first field); reply asks for the body (the last one)
      const field = how === "forward" ? fields[0] : fields.at(-1);
      return field ? type(field, text) : undefined;
    },
    (tree) => {
      // The send icon has no name or class in the tree: it is the last unnamed control above the field.
      const field = textboxes(tree.items).at(how === "forward" ? 0 : -1);
      const above = tree.items.filter(
        (i) =>
          field && i.ref < field.ref && i.role === "clickable" && i.name === "" && !/class=/.test(i.rest),
      );
      const send = tree.items.find((i) => /send/i.test(i.rest)) ?? named(tree.items, "Send") ?? above.at(-1);
      return send ? click(send) : undefined;
    },
  ]);
}

/** The posts of a feed: the prose line that names the author, and the controls that follow it. */
function postsBy(tree: Tree, user: string): TreeItem[][] {
  const posts: TreeItem[][] = [];
  let current: TreeItem[] | undefined;
  for (const line of tree.lines) {
    if (line.ref === undefined && /@\w+/.test(line.text)) {
      current = new RegExp(`(^|\\s)${user.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}(\\s|$)`).test(line.text)
        ? []
        : undefined;
      if (current) posts.push(current);
    } else if (current && line.ref !== undefined) current.push(line as TreeItem);
  }
  return posts;
}

const ACTION_CLASS: Record<string, string> = {
  Reply: "reply",
  Retweet: "retweet",
  Like: "like",
  Share: "share",
};

/** The action's control in a post: a button of its class, or an item behind the post's "more" menu. */
function actionIn(post: TreeItem[], tree: Tree, action: string, clicked: Set<number>): Call | undefined {
  const cls = ACTION_CLASS[action];
  const direct = cls ? post.find((i) => hasClass(i, new RegExp(`\\b${cls}\\b`))) : undefined;
  if (direct) return click(direct);
  const item = tree.items.find(
    (i) =>
      same(i.name, action) &&
      (i.role === "menuitem" || i.role === "clickable" || i.role === "link" || i.role === "listitem"),
  );
  if (item) return click(item);
  const more = post.find((i) => hasClass(i, /\bmore\b/) && !clicked.has(i.ref));
  return more ? click(more) : undefined;
}

const same = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

/** Click the action on the user's (first) post. */
export function socialAction(user: string, action: string): Policy {
  return (tree, history) => {
    const clicked = clickedRefs(history);
    const post = postsBy(tree, user)[0];
    if (!post) return { done: `no post by ${user}` };
    const done = actions(history).some(
      (c) =>
        c.name === "click_ax" &&
        !post.some((i) => i.ref === Number(c.args.ref_id) && hasClass(i, /\bmore\b/)),
    );
    if (done) return { done: "clicked" };
    return actionIn(post, tree, action, clicked) ?? { done: `no ${action} on the post` };
  };
}

/** Click the action on `count` (or all) posts by the user, then Submit. */
export function socialActionMany(user: string, action: string, count?: number): Policy {
  return (tree, history) => {
    const clicked = clickedRefs(history);
    const cls = ACTION_CLASS[action] ?? action.toLowerCase();
    const targets = postsBy(tree, user)
      .map((post) => post.find((i) => hasClass(i, new RegExp(`\\b${cls}\\b`))))
      .filter((i): i is TreeItem => i !== undefined)
      .slice(0, count ?? Number.POSITIVE_INFINITY);
    const next = targets.find((t) => !clicked.has(t.ref));
    if (next) return click(next);
    const submit = named(tree.items, "Submit", ["button", "clickable"]);
    if (submit && !clicked.has(submit.ref)) return click(submit);
    return { done: "submitted" };
  };
}

const PAGE_LINK = /^(\d+|<|>|«|»|‹|›|prev|next|first|last)$/i;
const PER_PAGE = 3;

/** Search, then click the n-th result (three a page, paged by numbered links). */
export function searchAndPick(query: string, n: number): Policy {
  return (tree, history) => {
    const k = actions(history).length;
    if (k === 0) {
      const f = textboxes(tree.items)[0];
      return f ? type(f, query) : { done: "no search field" };
    }
    if (k === 1) {
      const b = named(tree.items, "Search", ["button"]);
      return b ? click(b) : { done: "no search button" };
    }
    const page = Math.ceil(n / PER_PAGE);
    const results = tree.items.filter(
      (i) => i.role === "link" && !PAGE_LINK.test(i.name.trim()) && i.name.trim() !== "",
    );
    const last = actions(history).at(-1);
    if (k > 2 && last?.name === "click_ax" && results.some((r) => r.ref === Number(last.args.ref_id)))
      return { done: "clicked" };
    // the pager prints each page as a clickable (marked selected when shown) holding its link
    const pager = tree.items.find((i) => i.role === "clickable" && i.name.trim() === String(page));
    if (page > 1 && pager && !/\bselected\b/.test(pager.rest)) {
      const link = tree.items.find((i) => i.role === "link" && i.name.trim() === String(page)) ?? pager;
      return click(link);
    }
    const target = results[(n - 1) % PER_PAGE];
    return target ? click(target) : { done: "no such result" };
  };
}

/** Open contact pages until the person's heading shows, then click the asked field. */
export function phoneBook(person: string, field: string): Policy {
  return (tree, history) => {
    const index = tree.lines.findIndex((l) => l.role === "heading" && same(l.name, person));
    if (index >= 0) {
      const labelIndex = tree.lines.findIndex(
        (l, j) => j > index && l.ref === undefined && same(l.text.replace(/:$/, ""), field),
      );
      const target = tree.lines.slice(labelIndex + 1).find((l) => l.ref !== undefined);
      if (labelIndex > index && target?.ref !== undefined) return click(target as TreeItem);
    }
    if (actions(history).length > 12) return { done: "gave up" };
    const next = tree.items.find((i) => i.role === "link" && i.name.trim() === ">");
    return next ? click(next) : { done: `${person} not found` };
  };
}

export { clickSubmit };
