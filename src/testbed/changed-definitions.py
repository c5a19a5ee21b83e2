"""Which top-level definitions a change of Python files touches, for `tasks mine` (src/mine/chain-definitions.ts).

Two commits in a row can change one file for two features (a cache option for `remap`, then several
predicates for `partition`); the functions and classes they change tell them apart. Reads
[{"path", "before", "after"}, ...] as JSON on stdin (the file's text, or null where it does not exist)
and writes, per file, the module-level functions and classes whose syntax tree differs (positions
ignored) as {"name": "added" | "changed" | "removed"}, or null when either side does not parse.
"""
import ast
import json
import sys


def definitions(text):
    if text is None:
        return {}
    out = {}
    for node in ast.parse(text).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out[node.name] = ast.dump(node, include_attributes=False)
    return out


def changed(before, after):
    try:
        a, b = definitions(before), definitions(after)
    except (SyntaxError, ValueError):
        return None
    kind = lambda n: "added" if n not in a else "removed" if n not in b else "changed"
    return {n: kind(n) for n in sorted(set(a) | set(b)) if a.get(n) != b.get(n)}


def main():
    files = json.load(sys.stdin)
    json.dump([changed(f["before"], f["after"]) for f in files], sys.stdout)


main()
