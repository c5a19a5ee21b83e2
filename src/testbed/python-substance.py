"""Whether a step's change to Python files changes code, for `tasks mine` (src/mine/python-substance.ts).

A diff cannot tell a reformatting (a formatter's line joins, quotes, trailing commas) or added type
hints from a change of behaviour; the syntax tree can. Reads [{"path", "before", "after"}, ...] as JSON
on stdin (before/after: the file's text, or null where it does not exist) and writes one word per file:

  same         the same syntax tree (whitespace, line breaks, comments, quotes, parentheses)
  docstrings   the same once docstrings are dropped
  annotations  the same once docstrings and type annotations are dropped: parameter and return
               annotations, annotated assignments in functions and at module level (not in class
               bodies, where dataclasses and the like read them), typing imports and TYPE_CHECKING blocks
  leftovers    the same once leftovers are dropped, and the step only removes leftovers: imports and
               bare print(...) calls that the file at the candidate's base ("base" in the input, null
               where it does not exist) does not hold, i.e. that an earlier step added (a debug print,
               an import the linter calls unused)
  different    anything else, a file added or deleted, or one that does not parse
"""
import ast
import json
import sys

TYPING_MODULES = {"typing", "typing_extensions", "__future__", "collections.abc", "types"}


def is_docstring(stmt):
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def body_of(stmts):
    return stmts if stmts else [ast.Pass()]


class DropDocstrings(ast.NodeTransformer):
    def generic_visit(self, node):
        super().generic_visit(node)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body and is_docstring(node.body[0]):
            node.body = node.body[1:] if isinstance(node, ast.Module) else body_of(node.body[1:])
        return node


def is_type_checking(test):
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


class DropAnnotations(ast.NodeTransformer):
    def __init__(self):
        self.in_class = False

    def visit_ClassDef(self, node):
        outer, self.in_class = self.in_class, True
        self.generic_visit(node)
        self.in_class = outer
        return node

    def visit_function(self, node):
        node.returns = None
        a = node.args
        for arg in a.posonlyargs + a.args + a.kwonlyargs + [a.vararg, a.kwarg]:
            if arg is not None:
                arg.annotation = None
        outer, self.in_class = self.in_class, False
        self.generic_visit(node)
        self.in_class = outer
        node.body = body_of(node.body)
        return node

    visit_FunctionDef = visit_function
    visit_AsyncFunctionDef = visit_function

    def visit_AnnAssign(self, node):
        if self.in_class:
            return node
        if node.value is None:
            return None
        return ast.Assign(targets=[node.target], value=node.value)

    def visit_Import(self, node):
        node.names = [n for n in node.names if n.name not in TYPING_MODULES]
        return node if node.names else None

    def visit_ImportFrom(self, node):
        return None if node.module in TYPING_MODULES else node

    def visit_If(self, node):
        if is_type_checking(node.test):
            if not node.orelse:
                return None
            rest = ast.Module(body=node.orelse, type_ignores=[])
            self.generic_visit(rest)
            return rest.body
        self.generic_visit(node)
        node.body = body_of(node.body)
        return node


def dump(tree):
    return ast.dump(tree, include_attributes=False)


def is_leftover_kind(stmt):
    if isinstance(stmt, (ast.Import, ast.ImportFrom)):
        return True
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name) and stmt.value.func.id == "print"


def leftover_dumps(tree):
    return [dump(n) for n in ast.walk(tree) if is_leftover_kind(n)]


class DropLeftovers(ast.NodeTransformer):
    """Drops imports and print() statements that the base does not hold, collecting what it dropped."""

    def __init__(self, base):
        self.base = set(base)
        self.dropped = []

    def generic_visit(self, node):
        super().generic_visit(node)
        for field in ("body", "orelse", "finalbody"):
            stmts = getattr(node, field, None)
            if not isinstance(stmts, list) or not stmts or not isinstance(stmts[0], ast.stmt):
                continue
            kept = []
            for stmt in stmts:
                if is_leftover_kind(stmt) and dump(stmt) not in self.base:
                    self.dropped.append(dump(stmt))
                else:
                    kept.append(stmt)
            # An emptied block keeps a `pass` (an emptied module stays empty), as the other rules do.
            setattr(node, field, kept if kept or isinstance(node, ast.Module) or field != "body" else [ast.Pass()])
        return node


def only_removes_leftovers(a, b, base):
    """b is a with some leftovers removed and nothing else changed (a and b: trees the other rules reduced)."""
    base_dumps = leftover_dumps(base) if base is not None else []
    da, db = DropLeftovers(base_dumps), DropLeftovers(base_dumps)
    a, b = da.visit(a), db.visit(b)
    if dump(a) != dump(b):
        return False
    removed = list(da.dropped)
    for d in db.dropped:
        if d not in removed:
            return False
        removed.remove(d)
    return len(removed) > 0


def judge(before, after, path, base_text=None):
    if before is None or after is None:
        return "different"
    try:
        a, b = ast.parse(before, filename=path), ast.parse(after, filename=path)
    except (SyntaxError, ValueError):
        return "different"
    if dump(a) == dump(b):
        return "same"
    a, b = DropDocstrings().visit(a), DropDocstrings().visit(b)
    if dump(a) == dump(b):
        return "docstrings"
    a, b = DropAnnotations().visit(a), DropAnnotations().visit(b)
    if dump(a) == dump(b):
        return "annotations"
    try:
        base = None if base_text is None else DropAnnotations().visit(DropDocstrings().visit(ast.parse(base_text, filename=path)))
    except (SyntaxError, ValueError):
        return "different"
    return "leftovers" if only_removes_leftovers(a, b, base) else "different"


def main():
    files = json.load(sys.stdin)
    json.dump([judge(f["before"], f["after"], f["path"], f.get("base")) for f in files], sys.stdout)


main()
