"""Whether a step's change to Python files changes code, for `tasks mine` (src/mine/python-substance.ts).

A diff cannot tell a reformatting (a formatter's line joins, quotes, trailing commas) or added type
hints from a change of behaviour; the syntax tree can. Reads [{"path", "before", "after"}, ...] as JSON
on stdin (before/after: the file's text, or null where it does not exist) and writes one word per file:

  same         the same syntax tree (whitespace, line breaks, comments, quotes, parentheses)
  docstrings   the same once docstrings are dropped
  annotations  the same once docstrings and type annotations are dropped: parameter and return
               annotations, annotated assignments in functions and at module level (not in class
               bodies, where dataclasses and the like read them), typing imports and TYPE_CHECKING blocks
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


def judge(before, after, path):
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
    return "annotations" if dump(a) == dump(b) else "different"


def main():
    files = json.load(sys.stdin)
    json.dump([judge(f["before"], f["after"], f["path"]) for f in files], sys.stdout)


main()
