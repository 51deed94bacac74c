"""The package's layers import one way, and no module imports itself through others: the
import-linter contract in pyproject.toml, and a search for cycles over the whole import
graph (imports only a type checker reads count too: a type checker follows them, and a
module that imports itself that way has no order it can be read in)."""

from __future__ import annotations

import shutil
import subprocess

import grimp

from conftest import ROOT


def test_the_layers_import_one_way():
    lint = shutil.which("lint-imports")
    assert lint, "import-linter is a test dependency"
    done = subprocess.run([lint], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0, done.stdout[-3000:]
    assert "1 kept, 0 broken" in done.stdout


def cycles(graph) -> list[list[str]]:
    """The groups of modules that import each other, directly or not (Tarjan's algorithm,
    kept iterative: the graph is small, but recursion limits are not ours to lean on)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph.modules):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            module, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.find_modules_directly_imported_by(child)))))
                elif child in on_stack:
                    low[module] = min(low[module], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[module])
            if low[module] == index[module]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == module:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def test_no_module_imports_itself_through_others():
    graph = grimp.build_graph("turngate", exclude_type_checking_imports=False)
    assert len(graph.modules) > 40
    assert cycles(graph) == []


def test_the_cycle_search_finds_a_cycle():
    class Graph:
        modules = {"a", "b", "c", "d"}
        edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}

        def find_modules_directly_imported_by(self, module):
            return self.edges[module]

    assert cycles(Graph()) == [["a", "b", "c"]]
