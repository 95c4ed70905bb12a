"""Amendments at run time: an entry as the acting character uses it.

When a procedure receives an entry (``spell: Spell``), every entry the actor owns (lists in
its file) whose ``refers`` line selects that entry changes it first (:mod:`dsl.amendments`:
``adds`` and ``replaces`` lines). The trace records each change with the line it produced,
so a run shows the amended line before the rules read it.
"""

from __future__ import annotations

from typing import Any

from runebook.dsl import ast
from runebook.dsl.checker import CheckedEntry
from runebook.dsl.references import find_references
from runebook.dsl.amendments import Patch, apply_patches, patches
from runebook.dsl.vocabulary import fold

__all__ = ["amended"]


def _index(rules: Any) -> dict[str, list[CheckedEntry]]:
    """Target name (folded) → the entries that refer to it; computed once per rules."""
    index = getattr(rules, "_amendment_index", None)
    if index is None:
        index = {}
        ruleset = rules.ruleset
        for reference, _unknown in find_references(ruleset.vocabulary, list(ruleset.entries)):
            for target in reference.targets:
                owners = index.setdefault(fold(target), [])
                if reference.owner not in owners:
                    owners.append(reference.owner)
        rules._amendment_index = index
    return index


def _owned(actor: Any) -> set[str]:
    data = getattr(actor, "data", None) or {}
    return {fold(str(item)) for value in data.values() if isinstance(value, list) for item in value}


def amended(rules: Any, checked: CheckedEntry, actor: Any) -> tuple[ast.Entry, list[tuple[Patch, str]]]:
    """The entry with the changes of the entries the actor owns that amend it, and those changes."""
    owners = _index(rules).get(fold(checked.entry.name))
    if not owners or actor is None:
        return checked.entry, []
    owned = _owned(actor)
    mine = [o for o in owners if fold(o.entry.name) in owned]
    if not mine:
        return checked.entry, []
    vocab = rules.ruleset.vocabulary
    changes = [p for owner in mine for p in patches(owner, vocab)]
    return apply_patches(checked.entry, vocab, checked.kind, changes)
