"""`runebook lsp`: a Language Server Protocol server for ``.rules`` files.

The server (:mod:`interpreter.lsp.server`, built on pygls, the optional ``lsp`` extra) is a
thin adapter: diagnostics come from the same functions `runebook check` uses
(:mod:`interpreter.lsp.analysis`), names from the checked files (:mod:`interpreter.lsp.symbols`)
and odds from the rules layer (:mod:`interpreter.lsp.odds`). Only ``server`` imports pygls;
:mod:`interpreter.lsp.lexer`, the Pygments lexer for ``.rules``, is loaded by Pygments alone.
"""

__all__: list[str] = []
