"""Kind checks, as `runebook check` and the language server run them: a kind that says
`check NAME, ...` has every entry of that kind (the game's, and a homebrew file's) given to
those checks, and an entry one refuses is E0232 at its header. Unlike the model's checks (dsl.model), this runs the rules: it needs
the rules layer, and runs only on a ruleset whose model is clean."""

from __future__ import annotations

from typing import Any

from runebook.dsl import ast
from runebook.dsl.checker import CheckedEntry, check_entries
from runebook.dsl.diagnostics import Diagnostic, DiagnosticSink, RunebookError
from runebook.dsl.model import Model
from runebook.dsl.vocabulary import fold
from runebook.interpreter.rules import Rules
from runebook.interpreter.rules.procedures import ScriptedDriver

__all__ = ["homebrew_entries", "kind_checks", "refused_entries"]


def kind_checks(ruleset: Any) -> dict[str, list[ast.Phrase]]:
    """The checks each kind names in a `check NAME, ...` line, by the kind's folded name."""
    return {fold(block.name.text): list(block.checks) for _source, parsed in ruleset.files
            for block in parsed.blocks if isinstance(block, ast.KindDecl) and block.checks}


def homebrew_entries(base: Any, parsed: tuple[Any, ast.RulesFile]) -> list[CheckedEntry]:
    """The entries of one homebrew file, read with its game's vocabulary (the front end has
    already reported their own problems)."""
    return check_entries(base.vocabulary, [parsed], DiagnosticSink())


def refused_entries(model: Model, entries: list[CheckedEntry]) -> list[Diagnostic]:
    """E0232 for each entry one of its kind's checks refuses (a `require` that fails, or any
    other error the check meets with that entry). A check the kind names but the game does
    not declare is the model's E0303."""
    checks = kind_checks(model.ruleset)
    if not checks or model.errors:
        return []
    rules = Rules(model)
    found: list[Diagnostic] = []
    for entry in entries:
        for phrase in checks.get(fold(entry.kind or ""), []):
            target = rules.procedure(phrase.text) or rules.checks.get(fold(phrase.text))
            if target is None:
                continue
            param = next((p.name for p in target.decl.params if p.type and fold(p.type) == fold(entry.kind or "")),
                         None)
            if param is None:
                continue
            try:
                rules.run(phrase.text, seed=0, driver=ScriptedDriver([]), **{param: entry})
            except RunebookError as error:
                cause = error.diagnostics[0]
                found.append(Diagnostic.make("E0232", entry.source, entry.entry.header.span, kind=entry.kind,
                                             name=entry.entry.name, check=phrase.text, reason=cause.message,
                                             help=cause.help or None))
    return found
