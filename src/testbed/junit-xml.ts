/**
 * A small, strict reader of the JUnit XML that pytest writes (`--junitxml`). It understands
 * elements, attributes, entities, comments, CDATA, processing instructions and a DOCTYPE, and
 * throws on anything malformed, so an unreadable report is an infrastructure fault instead of a
 * silently empty result. Only what the verifier needs is kept: every <testcase> with its outcome.
 */

export type CaseOutcome = "passed" | "failed" | "error" | "skipped";

export interface JunitCase {
  classname: string;
  name: string;
  /** Only present with junit_family=xunit1. */
  file?: string;
  outcome: CaseOutcome;
  message?: string;
}

interface Element {
  name: string;
  attrs: Record<string, string>;
  children: Element[];
}

const entities: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, body: string) => {
    if (body.startsWith("#x")) return String.fromCodePoint(parseInt(body.slice(2), 16));
    if (body.startsWith("#")) return String.fromCodePoint(parseInt(body.slice(1), 10));
    const e = entities[body];
    if (e === undefined) throw new Error(`unknown entity ${whole}`);
    return e;
  });
}

const nameRe = /[A-Za-z_:][-A-Za-z0-9_:.]*/y;
const attrRe = /\s+([A-Za-z_:][-A-Za-z0-9_:.]*)\s*=\s*("([^"]*)"|'([^']*)')/y;

/** Parses an XML document into a tree of elements (text content is skipped). Throws when malformed. */
export function parseXml(xml: string): Element {
  let i = 0;
  const stack: Element[] = [];
  let root: Element | null = null;
  const fail = (what: string): never => {
    const line = xml.slice(0, i).split("\n").length;
    throw new Error(`malformed XML at line ${line}: ${what}`);
  };
  while (i < xml.length) {
    const lt = xml.indexOf("<", i);
    const text = xml.slice(i, lt < 0 ? xml.length : lt);
    if (stack.length === 0 && text.replace(/^\ufeff/, "").trim() !== "") fail("text outside the root element");
    // Validate entities in text too, so a broken report is not read as a good one.
    if (text.includes("&")) decodeEntities(text);
    if (lt < 0) break;
    i = lt;
    if (xml.startsWith("<!--", i)) {
      const end = xml.indexOf("-->", i + 4);
      if (end < 0) fail("unterminated comment");
      i = end + 3;
    } else if (xml.startsWith("<![CDATA[", i)) {
      const end = xml.indexOf("]]>", i + 9);
      if (end < 0) fail("unterminated CDATA");
      if (stack.length === 0) fail("CDATA outside the root element");
      i = end + 3;
    } else if (xml.startsWith("<?", i)) {
      const end = xml.indexOf("?>", i + 2);
      if (end < 0) fail("unterminated processing instruction");
      i = end + 2;
    } else if (xml.startsWith("<!DOCTYPE", i)) {
      const end = xml.indexOf(">", i);
      if (end < 0 || xml.slice(i, end).includes("[")) fail("unsupported DOCTYPE");
      i = end + 1;
    } else if (xml.startsWith("</", i)) {
      nameRe.lastIndex = i + 2;
      const m = nameRe.exec(xml);
      if (!m) fail("bad end tag");
      const open = stack.pop();
      if (!open || open.name !== m![0]) fail(`</${m![0]}> does not close <${open?.name ?? "nothing"}>`);
      i = nameRe.lastIndex;
      while (/\s/.test(xml[i] ?? "")) i++;
      if (xml[i] !== ">") fail("bad end tag");
      i++;
    } else {
      nameRe.lastIndex = i + 1;
      const m = nameRe.exec(xml);
      if (!m) fail("bad start tag");
      const el: Element = { name: m![0], attrs: {}, children: [] };
      i = nameRe.lastIndex;
      for (;;) {
        attrRe.lastIndex = i;
        const a = attrRe.exec(xml);
        if (!a) break;
        if (a[1]! in el.attrs) fail(`duplicate attribute ${a[1]}`);
        el.attrs[a[1]!] = decodeEntities(a[3] ?? a[4] ?? "");
        i = attrRe.lastIndex;
      }
      while (/\s/.test(xml[i] ?? "")) i++;
      let selfClosing = false;
      if (xml.startsWith("/>", i)) {
        selfClosing = true;
        i += 2;
      } else if (xml[i] === ">") {
        i++;
      } else {
        fail(`bad start tag <${el.name}>`);
      }
      const parent = stack[stack.length - 1];
      if (parent) parent.children.push(el);
      else if (root) fail("more than one root element");
      else root = el;
      if (!selfClosing) stack.push(el);
    }
  }
  if (stack.length > 0) fail(`<${stack[stack.length - 1]!.name}> is never closed`);
  if (!root) fail("no root element");
  return root!;
}

function collectCases(el: Element, out: JunitCase[]): void {
  if (el.name === "testcase") {
    let outcome: CaseOutcome = "passed";
    let message: string | undefined;
    for (const c of el.children) {
      if (c.name === "error") {
        outcome = "error";
        message = c.attrs.message ?? message;
      } else if (c.name === "failure" && outcome !== "error") {
        outcome = "failed";
        message = c.attrs.message ?? message;
      } else if (c.name === "skipped" && outcome === "passed") {
        outcome = "skipped";
        message = c.attrs.message ?? message;
      }
    }
    out.push({
      classname: el.attrs.classname ?? "",
      name: el.attrs.name ?? "",
      ...(el.attrs.file !== undefined ? { file: el.attrs.file } : {}),
      outcome,
      ...(message !== undefined ? { message } : {}),
    });
    return;
  }
  for (const c of el.children) collectCases(c, out);
}

/** Every <testcase> of a JUnit report. Throws when the document is malformed or is not a JUnit report. */
export function parseJunitReport(xml: string): JunitCase[] {
  const root = parseXml(xml);
  if (root.name !== "testsuites" && root.name !== "testsuite") throw new Error(`not a JUnit report (root element <${root.name}>)`);
  const out: JunitCase[] = [];
  collectCases(root, out);
  return out;
}
