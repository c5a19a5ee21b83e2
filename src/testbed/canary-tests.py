"""Canaries made from a test file's own tests, for the verifier (src/verify/real-canaries.ts).

Reads {"files": [{"path", "text", "mutate": ["Class::test_f", ...], "twin": [...], "keep_names": [...],
"max_mutants", "max_twins"}]} as JSON on stdin; writes [{"path", "text", "planted": [{"kind": "mutant"|"twin",
"of": key, "as": key, "original_as": key}]}] (text null when nothing was planted). A mutant is a copy
of a test whose body differs in one expected value (a literal on the expected side of an equality
assertion, else one negated assertion), so it fails wherever its original passes; a twin is an
exact copy. Either sits next to its original, decorators kept, named from the file's own test
words; half the time the copy takes the original's name and the original the new one. Only the
copied lines change (byte offsets from the syntax tree), so quotes, comments and layout match.
Pure text in, text out: nothing of the checkout is imported. Run with `python -I -S`.
"""
import ast
import json
import random
import re
import sys

rng = random.SystemRandom()
EQUAL_METHODS = {"assertEqual", "assertEquals", "assertListEqual", "assertTupleEqual", "assertDictEqual", "assertSequenceEqual", "assertMultiLineEqual"}
NEGATED_METHODS = {"assertTrue": "assertFalse", "assertFalse": "assertTrue", "assertIn": "assertNotIn", "assertNotIn": "assertIn", "assertIsNone": "assertIsNotNone", "assertIsNotNone": "assertIsNone", "assertIs": "assertIsNot", "assertIsNot": "assertIs", "assertEqual": "assertNotEqual", "assertNotEqual": "assertEqual"}
NEGATED_OPS = {ast.Eq: "!=", ast.NotEq: "==", ast.In: "not in", ast.NotIn: "in", ast.Is: "is not", ast.IsNot: "is", ast.Lt: ">=", ast.GtE: "<", ast.Gt: "<=", ast.LtE: ">"}
OP_TEXT = {ast.Eq: r"==", ast.NotEq: r"!=", ast.In: r"\bin\b", ast.NotIn: r"\bnot\s+in\b", ast.Is: r"\bis\b", ast.IsNot: r"\bis\s+not\b", ast.Lt: r"<(?!=)", ast.GtE: r">=", ast.Gt: r">(?!=)", ast.LtE: r"<="}
# A twin runs under another name: tests whose outcome can depend on their own name are not copied.
NAME_DEPENDENT = re.compile(r"\brequest\b|snapshot|_regression\b|\bdatadir\b|_testMethodName|self\.id\(|__qualname__|_getframe|\binspect\.|\bnode\.name\b")


def reads_own_name(source, name):
    """A twin runs under another name, so a test whose outcome can follow its own name is not copied: one that
    asks for it (request, self.id(), frames) or names itself again in its body, as an expected message that
    quotes the caller's name does (the name is read through a stack that no word of the test shows)."""
    return bool(NAME_DEPENDENT.search(source)) or len(re.findall(r"\b" + re.escape(name) + r"\b", source)) > 1


class Text:
    """The file's lines as bytes, so that the tree's byte columns index them."""

    def __init__(self, text):
        self.lines = text.encode("utf-8").split(b"\n")
        self.starts = []
        pos = 0
        for line in self.lines:
            self.starts.append(pos)
            pos += len(line) + 1
        self.data = text.encode("utf-8")

    def offset(self, line, col):
        return self.starts[line - 1] + col

    def span(self, node):
        return self.offset(node.lineno, node.col_offset), self.offset(node.end_lineno, node.end_col_offset)

    def source(self, node):
        a, b = self.span(node)
        return self.data[a:b].decode("utf-8")


def literal(src):
    try:
        return True, ast.literal_eval(src)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False, None


def new_string(src, value):
    """One plausible change to a string literal's source: two of its segments swapped, else one letter."""
    quote = re.match(r"^[rRbBuU]*(\"\"\"|'''|\"|')", src)
    if not quote or "\\" in src:
        return None
    body_start = quote.end()
    body = src[body_start:len(src) - len(quote.group(1))]
    parts = re.split(r"([-_ ./,:])", body)
    words = [i for i in range(0, len(parts), 2) if parts[i]]
    if len(words) >= 2 and len({parts[i] for i in words}) >= 2:
        for _ in range(20):
            i, j = rng.sample(words, 2)
            if parts[i] != parts[j]:
                parts[i], parts[j] = parts[j], parts[i]
                return src[:body_start] + "".join(parts) + src[len(src) - len(quote.group(1)):]
    letters = [k for k, ch in enumerate(body) if ch.isascii() and ch.isalnum()]
    if not letters:
        return None
    k = rng.choice(letters)
    ch = body[k]
    pool = "0123456789" if ch.isdigit() else "abcdefghijklmnopqrstuvwxyz" if ch.islower() else "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    other = rng.choice([c for c in pool if c != ch])
    return src[:body_start] + body[:k] + other + body[k + 1:] + src[len(src) - len(quote.group(1)):]


def literal_edits(text, node):
    """Edits [(start, end, new)] that change the literal `node` to a different value of its type, or None."""
    ok, value = literal(text.source(node))
    if not ok:
        return None
    if isinstance(node, ast.Constant) and node.lineno == node.end_lineno:
        src = text.source(node)
        if isinstance(value, bool) or value is None:
            return None
        if isinstance(value, int):
            new = str(value + rng.choice([-2, -1, 1, 2]) if value > 2 else value + rng.choice([1, 2]))
        elif isinstance(value, float) and value == value and abs(value) != float("inf"):
            new = repr(value + rng.choice([-1.0, 1.0]) * max(1.0, round(abs(value) / 2, 1)))
        elif isinstance(value, (str, bytes)):
            new = new_string(src, value)
        else:
            return None
        return None if new is None else [(*text.span(node), new)]
    if isinstance(node, (ast.List, ast.Tuple)) and len(node.elts) >= 2 and rng.random() < 0.5:
        pairs = [(a, b) for a in node.elts for b in node.elts if a is not b and literal(text.source(a)) != literal(text.source(b))]
        if pairs:
            a, b = sorted(rng.choice(pairs), key=lambda n: text.span(n))
            return [(*text.span(b), text.source(a)), (*text.span(a), text.source(b))]
    inner = list(node.values) if isinstance(node, ast.Dict) else list(getattr(node, "elts", []))
    rng.shuffle(inner)
    for child in inner:
        edits = literal_edits(text, child)
        if edits:
            return edits
    return None


def assertion_edits(text, stmt):
    """(strength, edits) for one top-level statement: 2 a changed expected literal, 1 a negation."""
    out = []
    if isinstance(stmt, ast.Assert):
        test = stmt.test
        if isinstance(test, ast.Compare) and len(test.ops) == 1:
            op = type(test.ops[0])
            if op is ast.Eq:
                for side in (test.comparators[0], test.left):
                    edits = literal_edits(text, side)
                    if edits:
                        out.append((2, edits))
                        break
            if op in NEGATED_OPS:
                a = text.offset(test.left.end_lineno, test.left.end_col_offset)
                b = text.offset(test.comparators[0].lineno, test.comparators[0].col_offset)
                between = text.data[a:b].decode("utf-8")
                m = re.search(OP_TEXT[op], between)
                if m:
                    out.append((1, [(a + len(between[:m.start()].encode()), a + len(between[:m.end()].encode()), NEGATED_OPS[op])]))
        elif isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            a, _ = text.span(test)
            b = text.offset(test.operand.lineno, test.operand.col_offset)
            out.append((1, [(a, b, "")]))
        elif isinstance(test, (ast.Name, ast.Call, ast.Attribute, ast.Subscript)):
            a, _ = text.span(test)
            out.append((1, [(a, a, "not ")]))
    elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Attribute):
        call = stmt.value
        name = call.func.attr
        if name in EQUAL_METHODS and len(call.args) >= 2:
            for side in (call.args[1], call.args[0]):
                edits = literal_edits(text, side)
                if edits:
                    out.append((2, edits))
                    break
        if name in NEGATED_METHODS and call.args:
            _, b = text.span(call.func)
            out.append((1, [(b - len(name.encode()), b, NEGATED_METHODS[name])]))
    return out


def leaves_early(fn):
    """A return or yield in the test itself (not a nested function) could skip the mutated line."""
    stack = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom)):
            return True
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            stack.extend(ast.iter_child_nodes(node))
    return False


def mutation(text, fn):
    """The edits of one mutant of `fn` (the strongest kind its top-level assertions allow), or None."""
    if leaves_early(fn):
        return None
    found = [c for stmt in fn.body for c in assertion_edits(text, stmt)]
    if not found:
        return None
    best = max(s for s, _ in found)
    return rng.choice([e for s, e in found if s == best])


def tests_of(tree):
    out = {}

    def walk(body, prefix):
        for node in body:
            if isinstance(node, ast.ClassDef):
                walk(node.body, prefix + node.name + "::")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                out[prefix + node.name] = node

    walk(tree.body, "")
    return out


def vocabulary(tree, text):
    words = set()
    for key in tests_of(tree):
        for w in key.rpartition("::")[2].split("_")[1:]:
            if re.fullmatch(r"[a-z][a-z0-9]{1,14}", w):
                words.add(w)
    if len(words) < 4:
        words |= set(w for w in re.findall(r"\b[a-z]{3,12}\b", text) if w not in {"def", "assert", "import", "from", "return", "class", "self", "for", "and", "not", "none", "true", "false", "with", "lambda", "pytest"})
    return sorted(words) or ["value", "result", "case", "basic"]


def fresh_name(words, like, taken):
    count = max(2, min(5, len(like.split("_")) - 1 + rng.choice([-1, 0, 0, 1])))
    for _ in range(500):
        name = "test_" + "_".join(rng.sample(words, count) if len(words) >= count else [rng.choice(words) for _ in range(count)])
        if name not in taken:
            return name
    return None


def copy_block(text, fn, edits, old_name, new_name):
    """The function's lines (first decorator to last line) with `edits` applied and its def renamed."""
    first = min([fn.lineno] + [d.lineno for d in fn.decorator_list])
    start, end = text.offset(first, 0), text.offset(fn.end_lineno, len(text.lines[fn.end_lineno - 1]))
    block = text.data[start:end]
    for a, b, new in sorted(edits, reverse=True):
        block = block[:a - start] + new.encode("utf-8") + block[b - start:]
    def_at = text.offset(fn.lineno, fn.col_offset) - start
    head = block[def_at:]
    renamed = re.sub(rb"^((?:async\s+)?def\s+)" + re.escape(old_name.encode()) + rb"\b", lambda m: m.group(1) + new_name.encode(), head, count=1)
    return block[:def_at] + renamed, first


def pick(text, tests, words, taken, jobs, kind, keys, limit):
    """Adds up to `limit` copies of `kind` of the tests `keys` (drawn at random) to `jobs`; how many."""
    used = {j[1] for j in jobs}
    keys = [k for k in dict.fromkeys(keys) if k in tests and k not in used]
    rng.shuffle(keys)
    made = 0
    for key in keys:
        if made >= limit:
            break
        fn = tests[key]
        if kind == "mutant":
            edits = mutation(text, fn)
        else:
            edits = None if reads_own_name(text.source(fn), fn.name) or leaves_early(fn) else []
        if edits is None:
            continue
        name = fresh_name(words, fn.name, taken)
        if name is None:
            continue
        taken.add(name)
        jobs.append((kind, key, fn, edits, name))
        made += 1
    return made


def plant(entry):
    src = entry["text"]
    try:
        tree = ast.parse(src)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return {"path": entry["path"], "text": None, "planted": []}
    text = Text(src)
    tests = tests_of(tree)
    words = vocabulary(tree, src)
    taken = set(re.findall(r"\b\w+\b", src))
    jobs = []
    mutants = pick(text, tests, words, taken, jobs, "mutant", entry.get("mutate", []), entry.get("max_mutants", 3))
    pick(text, tests, words, taken, jobs, "twin", entry.get("twin", []), entry.get("max_twins", 2))
    if mutants == 0:
        # No fail-to-pass test here can be mutated: a pass-to-pass one not twinned (weaker, see the docs).
        pick(text, tests, words, taken, jobs, "mutant", entry.get("mutate_fallback", []), entry.get("max_mutants", 3))
    out_text = text.data
    planted = []
    # From the bottom up, so that earlier offsets stay valid.
    for kind, key, fn, edits, name in sorted(jobs, key=lambda j: -j[2].lineno):
        prefix = key[: len(key) - len(fn.name)]
        # The copy may take the original's name, unless the name (or a class the method is in, which a
        # subclass could inherit it from under its old name) is used anywhere else in the file, or a
        # required test of another file has the method's name (its class may inherit this one's).
        names = [fn.name] + [c for c in prefix.split("::") if c]
        unique = all(len(re.findall(r"\b" + re.escape(n) + r"\b", src)) == 1 for n in names)
        swap = rng.random() < 0.5 and unique and fn.name not in entry.get("keep_names", [])
        copy_name, orig_name = (fn.name, name) if swap else (name, fn.name)
        copy, first = copy_block(text, fn, edits, fn.name, copy_name)
        original, _ = copy_block(text, fn, [], fn.name, orig_name)
        eol = b"\r\n" if b"\r\n" in text.data else b"\n"
        gap = eol * 3 if fn.col_offset == 0 else eol * 2
        both = copy + gap + original if rng.random() < 0.5 else original + gap + copy
        start, end = text.offset(first, 0), text.offset(fn.end_lineno, len(text.lines[fn.end_lineno - 1]))
        out_text = out_text[:start] + both + out_text[end:]
        planted.append({"kind": kind, "of": key, "as": prefix + copy_name, "original_as": prefix + orig_name})
    if not planted:
        return {"path": entry["path"], "text": None, "planted": []}
    result = out_text.decode("utf-8")
    try:
        ast.parse(result)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return {"path": entry["path"], "text": None, "planted": []}
    return {"path": entry["path"], "text": result, "planted": planted}


def main():
    request = json.load(sys.stdin)
    json.dump([plant(entry) for entry in request["files"]], sys.stdout)


main()
