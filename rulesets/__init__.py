"""The built-in games, as data: one folder of .rules files per game."""

from pathlib import Path

__all__ = ["RULESETS_DIR"]

#: Where the built-in games live, in a checkout and in an installed wheel alike.
RULESETS_DIR = Path(__file__).resolve().parent
