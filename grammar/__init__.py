"""The Lark grammars of the rules language. This package holds data only."""

from pathlib import Path

__all__ = ["GRAMMAR_DIR"]

#: The one place the grammar files are found, for the parser and for packaging tests.
GRAMMAR_DIR = Path(__file__).resolve().parent
