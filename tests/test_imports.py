"""The modules of dsl/ and interpreter/ import each other without a cycle.

Every import counts, wherever it is written: at the top of a module, inside a function
(an import moved into a function to dodge a cycle still makes one) and relative ones; so
does a module name handed to ``importlib.import_module`` as a literal (the command line
loads its subcommands that way). Imports of other packages are left out.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from functools import cache
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("dsl", "interpreter")
#: Our modules that need an optional extra (imported only where that feature runs).
OPTIONAL = ("runebook.interpreter.lsp",)


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            parts = ["runebook", *path.relative_to(REPO).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _known(name: str) -> str | None:
    """The module of ours that importing ``name`` runs (a name inside a module: the module)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


@cache
def _tree(path: Path) -> ast.Module:
    """A file's syntax tree, parsed once for all the tests here."""
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


@cache
def _graph() -> dict[str, dict[str, int]]:
    """Each of our modules with the modules of ours it imports (see :func:`_imports`)."""
    return {module: _imports(module, path) for module, path in MODULES.items()}


def _imports(module: str, path: Path) -> dict[str, int]:
    """The modules of ours that ``module`` imports, each with the line of its first import."""
    tree = _tree(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: list[tuple[str, int]] = []
    dynamic = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - (node.level - 1)]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            for alias in node.names:
                # `from interpreter.core import hexgrid` imports the module interpreter.core.hexgrid.
                full = f"{prefix}.{alias.name}"
                names.append((full if full in MODULES else prefix, node.lineno))
        elif isinstance(node, ast.Attribute) and node.attr == "import_module":
            dynamic = True
    if dynamic:
        names += [(node.value, node.lineno) for node in ast.walk(tree)
                  if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in MODULES]
    found: dict[str, int] = {}
    for name, line in names:
        target = _known(name)
        if target is not None and target != module:
            found.setdefault(target, line)
    return found


def _cycle(graph: dict[str, dict[str, int]]) -> list[str] | None:
    """A cycle of the graph (its modules in order, the first repeated at the end), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []
    for root in sorted(graph):
        if state.get(root):
            continue
        stack = [(root, iter(sorted(graph[root])))]
        state[root] = 1
        path.append(root)
        while stack:
            node, targets = stack[-1]
            for target in targets:
                if state.get(target) == 1:
                    return path[path.index(target):] + [target]
                if not state.get(target):
                    state[target] = 1
                    path.append(target)
                    stack.append((target, iter(sorted(graph[target]))))
                    break
            else:
                stack.pop()
                path.pop()
                state[node] = 2
    return None


def test_the_graph_sees_every_kind_of_import() -> None:
    graph = _graph()
    assert "runebook.interpreter.rules" in graph["runebook.interpreter"]  # from interpreter.rules import load
    assert "runebook.interpreter.cli.commands.check" in graph["runebook.interpreter.cli.main"]  # importlib.import_module
    assert all(not name.startswith(("lark", "attrs", "yaml")) for targets in graph.values() for name in targets)
    made_up = _cycle({"a": {"b": 1}, "b": {"c": 2}, "c": {"a": 3}, "d": {"a": 4}})
    assert made_up == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b": 1}, "b": {}, "c": {"a": 2, "b": 3}}) is None


def test_no_import_cycle() -> None:
    graph = _graph()
    cycle = _cycle(graph)
    if cycle is not None:
        steps = [f"{a} (line {graph[a][b]}: imports {b})" for a, b in zip(cycle, cycle[1:])]
        raise AssertionError("import cycle:\n  " + "\n  ".join(steps))


def test_the_sub_packages_are_layered() -> None:
    """core/ imports no other part of interpreter/; only the command line imports cli/."""
    graph = _graph()
    for module, targets in graph.items():
        ours = [t for t in targets if t.startswith("runebook.interpreter") and t != "runebook.interpreter"]
        if module.startswith("runebook.interpreter.core"):
            assert all(t.startswith("runebook.interpreter.core") for t in ours), (module, ours)
        if not module.startswith(("runebook.interpreter.cli", "runebook.interpreter.__main__")):
            assert not any(t.startswith("runebook.interpreter.cli") for t in ours), (module, ours)


def test_dsl_imports_nothing_of_the_interpreter() -> None:
    """The front end, the model and its checks stand alone: nothing upstream imports the interpreter."""
    graph = _graph()
    for module, targets in graph.items():
        if module.startswith("runebook.dsl"):
            assert not any(t.startswith("runebook.interpreter") for t in targets), (module, targets)


def test_check_needs_only_the_front_end() -> None:
    """`runebook check` gets every diagnostic from dsl/ (the model's checks included) but
    E0232, which runs a kind's checks (interpreter.rules.kind_checks, shared with the language
    server), and E0637, which runs a game's examples (interpreter.rules.examples): the command
    imports no other part of the interpreter than the command line's own helpers."""
    graph = _graph()
    ours = [t for t in graph["runebook.interpreter.cli.commands.check"] if t.startswith("runebook.interpreter")]
    running = {"runebook.interpreter.rules.kind_checks", "runebook.interpreter.rules.examples"}
    assert running <= set(ours)
    assert all(t.startswith("runebook.interpreter.cli") or t in running for t in ours), ours


#: Functions that import our modules when they run, so that a one-shot `runebook roll 1d20`
#: starts fast (issue 18; benchmarks/bench_startup.py): the roll and odds commands load the
#: evaluator, games, renderers and charts only when they run; an expression outside the
#: plain dice sums loads the grammar; a result's `shown` values read statements (the AST).
#: The test of cycles above still counts these imports.
STARTUP = {
    "runebook.interpreter.cli.commands.dice": {"_warn", "run_roll", "_is_game", "run_odds", "_compare",
                                               "_given_names", "_naming_the_flag"},
    "runebook.interpreter.core.evaluate": {"_compile_new_text"},
    "runebook.interpreter.rules.results": {"shown"},
}


def test_no_import_hides_in_a_function() -> None:
    """Imports of our modules are at the top of each module, where a reader sees them. An
    optional library may wait until the feature that needs it runs, and so may our modules
    built on one (the language server, on the `lsp` extra's pygls); so may the few listed in
    STARTUP, for start-up time."""
    for module, path in MODULES.items():
        for node in ast.walk(_tree(path)):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for inner in ast.walk(node):
                names = [a.name for a in inner.names] if isinstance(inner, ast.Import) else \
                    [inner.module or "."] if isinstance(inner, ast.ImportFrom) else []
                ours = [n for n in names if (n.startswith("runebook.") or n.startswith("."))
                        and not n.startswith(OPTIONAL)]
                if node.name in STARTUP.get(module, ()):
                    continue
                assert not ours, f"{module}: {node.name} imports {ours[0]} at line {inner.lineno}"


def test_every_import_goes_through_the_runebook_namespace() -> None:
    """Installed, the packages live only under ``runebook.``: a bare ``import interpreter``
    (or ``dsl``, ``grammar``, ``rulesets``) works in a checkout and fails for every user."""
    bare = []
    for path in _python_files():
        for node in ast.walk(_tree(path)):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module] if isinstance(node, ast.ImportFrom) and not node.level and node.module else []
            bare += [f"{path.relative_to(REPO)}:{node.lineno}: {n}" for n in names
                     if n.split(".")[0] in (*PACKAGES, "grammar", "rulesets")]
    assert not bare, "\n".join(bare)


def _python_files() -> list[Path]:
    """Every Python file of the checkout, outside hidden folders, caches and builds."""
    found = []
    for folder, subfolders, files in os.walk(REPO):
        subfolders[:] = sorted(d for d in subfolders if not d.startswith((".", "__"))
                               and d not in ("node_modules", "build", "dist", "site-packages"))
        found += [Path(folder) / f for f in sorted(files) if f.endswith(".py")]
    return found


def test_version_imports_no_command() -> None:
    """`runebook --version` printed its line after importing every command (0.6 s, where
    `runebook roll 1d20` takes 0.25 s): it imports none now."""
    probe = ("import sys\nfrom runebook.interpreter.cli.main import main\ncode = main(['--version'])\n"
             "loaded = [m for m in sys.modules if m.startswith('runebook.interpreter.cli.commands.')]\n"
             "print(code, loaded)")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, check=True)
    assert done.stdout.splitlines()[-1] == "0 []", done.stdout + done.stderr
    assert done.stdout.startswith("runebook ")
