import { describe, expect, it } from "vitest";
import { RcmEngine } from "../../src/rcm/engine.js";
import { parseRcmOptions } from "../../src/rcm/options.js";
import { extractRefs } from "../../src/rcm/refs.js";
import { commitAssignment, emptyRouterState } from "../../src/rcm/router.js";
import { planAssembly } from "../../src/rcm/assembly.js";
import { harnessGroup, plainGroup, say, write } from "./helpers/history.js";
import { replay } from "./helpers/replay.js";
import type { Group } from "../../src/rcm/history.js";

const engine = (mode: "router" | "rcm" = "rcm") => new RcmEngine(parseRcmOptions({ mode }));

/** Feeds groups one by one (each is the current request once) and returns the assignments. */
const route = (e: RcmEngine, groups: Group[]) =>
  replay(e, groups, (plan, g) => ({ ...e.memory.router.assignments[g.id]!, filtered: plan.filtered }));

describe("explicit references", () => {
  it("finds the workspace, files, module paths and code symbols, not file extensions", () => {
    const r = extractRefs(
      "Repository: demo\nWorkspace: /runs/w02/\n\nIn `textflow.util.stats` add `count_syllables()` to lex/syllables.py and fix alpha.py; see /runs/w02/src/x.ts and readingTime.",
    );
    expect(r.workspace).toBe("/runs/w02");
    expect([...r.paths]).toEqual(expect.arrayContaining(["lex/syllables.py", "alpha.py", "src/x.ts", "textflow/util/stats"]));
    expect([...r.symbols]).toEqual(expect.arrayContaining(["count_syllables", "stats", "readingTime"]));
    expect(r.symbols.has("py")).toBe(false);
  });

  it("pairs code spans in order (a long one is no reason to read prose as code), and reads no URL, escape or function as a module", () => {
    const long = `\`split_sentences("Intro\\n\\nThe text starts here. ${"It goes on. ".repeat(10)}")\``;
    const r = extractRefs(
      `First ${long}. Second, add \`sentence_spans(text)\` as in \`textflow.lex.sentences.split_sentences\`; for \`" A\\n"\` the spans are \`[(2, 23)]\`, see <https://example.com/a/b>.`,
    );
    expect([...r.symbols].sort()).toEqual(["sentence_spans", "split_sentences"]);
    // `pkg.mod.function` names the module too.
    expect([...r.paths].sort()).toEqual(["textflow/lex/sentences", "textflow/lex/sentences/split_sentences"]);
  });
});

describe("task history router", () => {
  it("routes by the workspace a request names: known workspaces continue their task, a new one starts a task", () => {
    const a = route(engine(), [
      harnessGroup("/r/w00", "Add parsing of amounts.", [write("/r/w00/amount.py")]),
      harnessGroup("/r/w01", "Add a report of balances.", [write("/r/w01/report.py")]),
      harnessGroup("/r/w00", "Also round amounts to cents."),
      harnessGroup("/r/w02", "Unrelated third thing."),
      harnessGroup("/r/w01", "Finish the task in this workspace."),
    ]);
    expect(a.map((x) => x.task)).toEqual(["t1", "t2", "t1", "t3", "t2"]);
    expect(a.map((x) => x.method)).toEqual(["first", "workspace", "workspace", "workspace", "workspace"]);
    expect(a.every((x) => x.confidence >= 0.8)).toBe(true);
  });

  it("without workspaces, uses files and symbols of earlier requests and tool calls, then similarity", () => {
    const a = route(engine(), [
      plainGroup("Implement `parse_amount` in ledger/amount.py so that it accepts negative values in parentheses.", [
        write("ledger/amount.py"),
      ]),
      plainGroup("Write the monthly income report renderer in reports/income.py with totals per category and a grand total row.", [
        write("reports/income.py"),
      ]),
      plainGroup("In ledger/amount.py, parse_amount must also accept a leading plus sign."),
      plainGroup("The income report renderer should print the grand total row in bold and the category totals sorted by amount."),
    ]);
    expect(a.map((x) => x.task)).toEqual(["t1", "t2", "t1", "t2"]);
    expect(a.map((x) => x.method)).toEqual(["first", "new", "refs", "similarity"]);
    // A request that names only files and symbols no task knows, with little likeness, starts a task.
    expect(a.map((x) => x.confidence >= 0.8)).toEqual([true, true, true, true]);
  });

  it("keeps the full history for an undecided request and marks shared instructions", () => {
    const e = engine();
    const a = route(e, [
      plainGroup("Implement `parse_amount` in ledger/amount.py for negative values in parentheses.", [write("ledger/amount.py")]),
      plainGroup("Add the income report renderer in reports/income.py with totals per category.", [write("reports/income.py")]),
      plainGroup("ok, go on"),
      plainGroup("From now on, run the tests before you say you are done, in every task."),
    ]);
    expect(a[2]).toMatchObject({ task: "t2", method: "follow-up", filtered: false });
    expect(a[2]!.confidence).toBeLessThan(0.8);
    // A shared instruction is visible to every task, and nothing is filtered while it is answered.
    expect(a[3]).toMatchObject({ task: null, method: "shared", filtered: false });
    expect(e.memory.router.tasks).toHaveLength(2);
  });

  it("routes a request once per turn: later steps of the same turn reuse the assignment", () => {
    const e = engine();
    const g1 = harnessGroup("/r/w00", "First task.");
    const g2 = harnessGroup("/r/w01", "Second task.");
    e.prepare([g1]);
    e.prepare([g1, g2]);
    const before = structuredClone(e.memory.router);
    g2.actions.push(write("/r/w01/x.py"));
    e.prepare([g1, g2]);
    e.prepare([g1, g2]);
    expect(e.memory.router.assignments).toEqual(before.assignments);
    expect(e.memory.router.tasks.map((t) => t.groups)).toEqual([[g1.id], [g2.id]]);
  });

  // Tasks of one subsystem (near sessions) share its modules: naming them is no continuation.
  // The third request names only modules of t2 (latex.py, LatexPrinter) and names of t1's own.
  it("starts a task for a request that names another task's modules but mostly new things; a request spanning two tasks goes to the one with more names of its own", () => {
    const a = route(engine(), [
      plainGroup(
        "In the pretty printer (printing/pretty.py, PrettyPrinter) the bar that separates ImageSet, ConditionSet and ComplexRegion from their condition must grow with the expression's height.",
        [write("printing/pretty.py")],
      ),
      plainGroup(
        "Please add LaTeX and pretty printing for Expectation, Variance, Covariance and Probability from stats.symbolic_probability and stats.rv: Expectation(X) prints as an operator applied to X, Variance(X) and Covariance(X, Y) likewise, Probability(X > 1) around its condition, and evaluate_integral() or doit() must not be called on them, keeping Moment, CentralMoment and ExpectationMatrix unevaluated too. In printing/latex.py and in PrettyPrinter (printing/pretty.py).",
        [write("printing/latex.py"), write("printing/pretty.py")],
      ),
      plainGroup(
        "Same fix is needed on the LaTeX side: in printing/latex.py (LatexPrinter), ImageSet, ConditionSet and ComplexRegion must print their separator so it scales with the braces.",
      ),
    ]);
    expect(a.map((x) => `${x.task} ${x.method}`)).toEqual(["t1 first", "t2 new", "t1 refs"]);
    expect(a.every((x) => x.confidence >= 0.8)).toBe(true);
  });

  // The third request names a file no task knows, but the class and method only t1's requests named,
  // and what it says (a lookup linear in the log's size) is what t1's second request said.
  it("continues a task whose own names a request gives and whose subject it speaks of, even in a new file", () => {
    const a = route(engine(), [
      plainGroup(
        "In netkit/limits/bucket.py, TokenBucket.admit_burst(...) is left undecided for large bursts. Add a burst handler: a burst larger than the bucket's capacity is refused at once, decided from the sizes alone; otherwise it is admitted exactly when every request of the burst fits.",
        [write("netkit/limits/bucket.py")],
      ),
      plainGroup(
        "Follow-up on the burst handler in netkit/limits/bucket.py: checking each request with RequestLog.contains is slow, because a lookup in a RequestLog compares against every entry (runtime grows linearly with its size), so admit_burst(RequestLog(*range(300))) takes seconds. Match request ids directly instead.",
        [write("netkit/limits/bucket.py")],
      ),
      plainGroup(
        "The CSV exporter (reports/export_csv.py, write_rows) quotes nothing: fields with commas or quotes break the columns. Quote such fields and double the quotes inside them.",
        [write("reports/export_csv.py")],
      ),
      plainGroup(
        "RequestLog.contains in netkit/limits/journal.py is linear in the size of the log even when the entry is literally one of the log's entries: for r = RequestLog(*range(10**4)), r.contains(9999) takes about 2 seconds. Make lookup of such an entry immediate (a hash lookup through JournalIndex.hash_key() rather than a scan); for any other entry fall back to the existing check over every entry, so results do not change. Update the docstring accordingly: the test compares timestamps, and in the worst case the whole journal is scanned.",
      ),
    ]);
    expect(a.map((x) => x.task)).toEqual(["t1", "t1", "t2", "t1"]);
    expect(a[3]!.confidence).toBeGreaterThanOrEqual(0.8);
  });

  // The second request names t1's file and the two classes t1's request named, but mostly new names,
  // and says nothing t1's requests said: another report about the package.
  it("starts a task for a request that names a task's file and classes among many new names and speaks of something else", () => {
    const a = route(engine(), [
      plainGroup(
        "In geokit/shapes/core.py, PolygonShape.covers(CircleShape(...)) is left undecided even in obvious cases. Add a covers handler for a PolygonShape against a CircleShape: a circle wider than the polygon's bounding box is not covered, decided from the sizes alone.",
        [write("geokit/shapes/core.py")],
      ),
      plainGroup(
        "Issue #412: the serialization of shapes is wrong in geokit/shapes. CircleShape.to_wkt (geokit/shapes/core.py) drops the radius and PolygonShape.to_geojson emits rings clockwise. Expected: to_wkt writes CIRCULARSTRING with three points, to_geojson writes counter-clockwise exterior rings and clockwise holes, from_wkt and from_geojson read them back, and the export_precision option rounds coordinates to the requested number of decimals before writing. Files written by older releases must still load.",
        [write("geokit/shapes/core.py")],
      ),
    ]);
    expect(a.map((x) => `${x.task} ${x.method}`)).toEqual(["t1 first", "t2 new"]);
    expect(a[1]!.confidence).toBeGreaterThanOrEqual(0.8);
  });

  // The second request names t1's package, function and class among many new names, and besides the
  // names says nothing t1's request said.
  it("starts a task for a request whose words besides its names have nothing in common with any task's", () => {
    const a = route(engine(), [
      plainGroup(
        "In numkit/bundles/pack.py, pack_arrays(ArrayBundle(...)) drops the dtype of empty arrays. Keep the dtype when packing an empty array and record it in the bundle header.",
        [write("numkit/bundles/pack.py")],
      ),
      plainGroup(
        "The package has no public entry point: numkit/bundles/__init__.py exports nothing, so users import ArrayBundle and pack_arrays from internal submodules. Export ArrayBundle, pack_arrays, unpack_arrays, BundleReader, BundleWriter, BundleIndex and open_bundle from the package, document them in the API reference, and list them in __all__.",
      ),
    ]);
    expect(a.map((x) => `${x.task} ${x.method}`)).toEqual(["t1 first", "t2 new"]);
    expect(a[1]!.confidence).toBeGreaterThanOrEqual(0.8);
  });

  it("uses tool-call paths of earlier groups as references", () => {
    const a = route(engine(), [
      plainGroup("Make the first change we discussed.", [write("src/alpha/core.py"), say("Done.")]),
      plainGroup("Make the second change, somewhere else entirely: a new module src/beta/export.py for exports.", [
        write("src/beta/export.py"),
      ]),
      plainGroup("There is a bug in src/alpha/core.py: the loop is off by one."),
    ]);
    expect(a.map((x) => x.task)).toEqual(["t1", "t2", "t1"]);
  });
});

// Two tasks change one module (`docgen/markup.py`): a request names the module and its class
// whichever task it belongs to, and only what it asks for tells the tasks apart.
describe("tasks of one module", () => {
  const module = "docgen/markup.py";
  const footnotes = plainGroup(
    "The markup renderer (MarkupRenderer, render_markup(doc, style='compact') in docgen/markup.py) drops footnotes. A footnote reference in a paragraph prints nothing, and footnote bodies are never written out: number every footnote reference in order of appearance and list the footnote bodies, numbered, after the last paragraph.",
    [write(module)],
  );
  const tables = plainGroup(
    "The markup renderer (MarkupRenderer in docgen/markup.py) has no support for tables: TableBlock, TableRow and TableCell come out as plain text. Print a TableBlock as aligned columns using column_widths(), pad every TableCell to its column width, and draw a rule under the header_row.",
    [write(module)],
  );
  const footnotesAgain = plainGroup(
    "Follow-up on footnotes in the markup renderer (docgen/markup.py), after the footnote fix: a footnote referenced twice must keep its first number, and the numbered footnote bodies must not repeat it.",
  );
  const tablesAgain = plainGroup(
    "One more thing for the markup renderer in docgen/markup.py: wide tables must wrap the text of their columns instead of overflowing, keeping the columns aligned and the header rule as wide as the table.",
  );
  const escaping = plainGroup(
    "The markup renderer (MarkupRenderer in docgen/markup.py) escapes nothing: angle brackets and ampersands reach the output verbatim. Add escape_entities(text) and an EntityEscaper with a safe_attributes option, call it from render_inline() and render_code_span(), and keep RawBlock contents untouched.",
    [write(module)],
  );

  it("starts a task for another report about the module, continues each task by what its follow-up is about, and starts a third", () => {
    const a = route(engine(), [footnotes, tables, footnotesAgain, tablesAgain, escaping]);
    expect(a.map((x) => x.task)).toEqual(["t1", "t2", "t1", "t2", "t3"]);
    expect(a.map((x) => x.method)).toEqual(["first", "new", "similarity", "similarity", "new"]);
    expect(a.every((x) => x.confidence >= 0.8)).toBe(true);
  });

  it("is unsure about a follow-up on the module that is like none of its tasks, and keeps the full history for it", () => {
    const a = route(engine(), [
      footnotes,
      tables,
      plainGroup("Follow-up on the markup renderer in docgen/markup.py: nested lists lose their indentation."),
    ]);
    expect(a[2]).toMatchObject({ filtered: false });
    expect(a[2]!.confidence).toBeLessThan(0.8);
  });
});

describe("unsure routing", () => {
  it("a task opened below the threshold is confirmed by a confident request to it, and then left out of other tasks' history", () => {
    const state = emptyRouterState();
    const g = (id: string): Group => ({ id, userMessageId: id, userText: id, actions: [] });
    const groups = ["g1", "g2", "g3", "g4"].map(g);
    commitAssignment(state, groups[0]!, { task: null, confidence: 1, method: "first", newTask: true }, null, 0.8);
    commitAssignment(state, groups[1]!, { task: null, confidence: 0.7, method: "new", newTask: true }, null, 0.8);
    const plan = () =>
      planAssembly({
        mode: "router",
        threshold: 0.8,
        keepRecent: 2,
        groups: groups.slice(0, 4),
        assignments: state.assignments,
        states: {},
      });
    commitAssignment(state, groups[3]!, { task: "t1", confidence: 0.95, method: "refs", newTask: false }, null, 0.8);
    // Unsure: g2 stays in t1's history (it may be t1's).
    expect(plan().treatments).toEqual(["verbatim", "verbatim", "verbatim", "verbatim"]);
    commitAssignment(state, groups[2]!, { task: "t2", confidence: 0.9, method: "refs", newTask: false }, null, 0.8);
    expect(state.assignments.g2).toMatchObject({ task: "t2", confidence: 0.7, confirmed: 0.9 });
    expect(plan().treatments).toEqual(["verbatim", "dropped", "dropped", "verbatim"]);
  });

  it("an undecided request joins no task: it lends no task its words, and stays in every task's history", () => {
    const e = engine("router");
    const a = route(e, [
      plainGroup("Implement `parse_amount` in ledger/amount.py for negative amounts in parentheses.", [write("ledger/amount.py")]),
      plainGroup("Add the income report renderer in reports/income.py with totals per category.", [write("reports/income.py")]),
      plainGroup("Next, handle negative totals in the amounts report as well."),
    ]);
    expect(a[2]).toMatchObject({ task: null, method: "ambiguous", filtered: false });
    expect(a[2]!.confidence).toBeLessThan(0.8);
    expect(e.memory.router.tasks.map((t) => t.groups.length)).toEqual([1, 1]);
  });
});
