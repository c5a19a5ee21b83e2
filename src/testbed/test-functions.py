"""Line ranges of the test functions of Python files, for `tasks mine` (src/mine/old-tests.ts).

Reads {"path": "source text", ...} as JSON on stdin and writes {"path": {"Class::test_name": [first,
last]}, ...}: each function or method (nested classes joined by `::`, as pytest names them), from
its first decorator to its last line. A file that does not parse maps to null. Run with the
interpreter of the tests, so that the syntax is the one the tests are written in.
"""
import ast
import json
import sys


def ranges(tree):
    out = {}

    def walk(body, prefix):
        for node in body:
            if isinstance(node, ast.ClassDef):
                walk(node.body, prefix + node.name + "::")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                first = min([node.lineno] + [d.lineno for d in node.decorator_list])
                out[prefix + node.name] = [first, node.end_lineno]

    walk(tree.body, "")
    return out


def main():
    files = json.load(sys.stdin)
    result = {}
    for path, text in files.items():
        try:
            result[path] = ranges(ast.parse(text, filename=path))
        except (SyntaxError, ValueError):
            result[path] = None
    json.dump(result, sys.stdout)


main()
