"""Every page is functions: a ``render()`` entry point and small helpers (issue 37).

A page file runs as a script (the app routes by file name, see ``app.py``), so each one ends with
the single statement ``render()``; above it only imports, constants and definitions. No function
of ``pages/`` or ``ui/`` has more than 60 lines of body (the house rule, docs/develop/index.md).
"""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted(path.relative_to(ROOT).as_posix() for path in (ROOT / "pages").glob("*.py"))
MODULES = PAGES + sorted(path.relative_to(ROOT).as_posix() for path in (ROOT / "ui").glob("*.py"))
MAX_BODY_LINES = 60
#: Pages still top-level scripts, each with the reason: skipped while they end otherwise than with
#: ``render()``, checked like every page once they do. Their functions are checked already.
NOT_YET: dict[str, str] = {}


def _tree(file: str) -> ast.Module:
    return ast.parse((ROOT / file).read_text(encoding="utf-8"), filename=file)


def body_lines(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines from the first statement after the docstring to the function's last line."""
    body = function.body
    if len(body) > 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return function.end_lineno - body[0].lineno + 1


def test_body_lines_counts_from_the_first_statement_after_the_docstring():
    source = 'def f():\n    """Doc.\n\n    More.\n    """\n    a = 1\n\n    return a\n'
    assert body_lines(ast.parse(source).body[0]) == 3
    assert body_lines(ast.parse("def g():\n    return 1\n").body[0]) == 1


def test_there_are_pages_to_check():
    assert "pages/randomized_response.py" in PAGES
    assert "ui/results.py" in MODULES


@pytest.mark.parametrize("file", PAGES)
def test_a_page_defines_render_and_ends_by_calling_it(file):
    tree = _tree(file)
    if file in NOT_YET and ast.unparse(tree.body[-1]) != "render()":
        pytest.skip(NOT_YET[file])  # only while it is still a script: converted, it is checked
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    assert "render" in functions, f"{file} defines no render()"
    render = functions["render"].args
    assert not (render.args or render.posonlyargs or render.kwonlyargs or render.vararg)
    assert ast.unparse(tree.body[-1]) == "render()", f"{file} does not end with render()"
    allowed = (ast.Import, ast.ImportFrom, ast.Assign, ast.AnnAssign, ast.FunctionDef, ast.ClassDef)
    docstring = ast.get_docstring(tree) is not None
    script = [
        ast.unparse(node).splitlines()[0]
        for node in tree.body[docstring:-1]
        if not isinstance(node, allowed)
    ]
    assert not script, f"{file} runs statements outside render(): {script}"


@pytest.mark.parametrize("file", MODULES)
def test_no_function_is_longer_than_the_house_rule(file):
    long = [
        f"{node.name} (line {node.lineno}): {body_lines(node)} lines"
        for node in ast.walk(_tree(file))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and body_lines(node) > MAX_BODY_LINES
    ]
    assert not long, f"{file}: {long}"
