"""Command-line options shared by several commands (light to import: what a command needs
to parse its arguments, not to run)."""

from __future__ import annotations

import argparse

__all__ = ["TRACE_LEVELS", "add_check_inputs", "add_trace_options", "faces"]

#: How much of a trace to print (``--trace``).
TRACE_LEVELS = ("full", "brief", "none")


def faces(text: str) -> list[int]:
    """``--dice 8,6,1``: the faces a player rolled (an argparse type)."""
    parts = [p for p in text.replace(" ", ",").split(",") if p]
    try:
        return [int(p) for p in parts]
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected whole numbers separated by commas, got '{text}'") from None


def add_check_inputs(parser: argparse.ArgumentParser) -> None:
    """``--with``, ``--option``, ``--as`` and ``--against``: what a check or procedure is given."""
    parser.add_argument("--with", dest="inputs", action="append", metavar="NAME=VALUE",
                        help="an input of the check, e.g. --with pool=5 or --with ability=7M")
    parser.add_argument("--option", dest="options", action="append", metavar="NAME=VALUE",
                        help="a house rule: one of the game's options set to one of its choices, "
                        "--option NAME=CHOICE (the game's README and 'runebook export GAME' list them)")
    parser.add_argument("--as", dest="actor", metavar="CHAR.yaml", action="append",
                        help="the acting character ('actor' in the check; its stats fill missing inputs); "
                        "give it again for a group ('actors' lists them all)")
    parser.add_argument("--against", dest="target", metavar="CHAR.yaml", action="append",
                        help="the character or obstacle acted upon ('target' in the check); give it again "
                        "for several ('targets')")


def add_trace_options(parser: argparse.ArgumentParser) -> None:
    """``--trace full|brief|none`` and ``--quiet`` (the same as ``--trace none``)."""
    parser.add_argument("--trace", choices=TRACE_LEVELS, default="full",
                        help="how much of what happened to print: every step (full, the default), the dice, "
                        "choices, procedures used and changes of state (brief), or only the results (none)")
    parser.add_argument("--quiet", "-q", action="store_const", dest="trace", const="none",
                        help="print only the results (--trace none)")
