"""Dice notation dialects: what the modifiers of a dice term mean.

The grammar reads every spelling the popular rollers document (``4d6kh3``, ``4d6d1``,
``4d6L``, ``5d6!p``, ``4d6min3``, ``3d6ms>10``, ``8d6e6``, ...) into generic
:class:`~dsl.expr_ast.DiceModifier` nodes. Where two tools give one spelling different
meanings, the *dialect* decides (docs/expressions.md has the table):

- ``runebook`` (the default): Roll20's spelling, except that ``cs``/``cf`` count successes
  and failures as in Foundry (what rules files use);
- ``roll20``: ``cs``/``cf`` mark critical faces without changing the total; ``r`` rerolls
  until the face no longer matches; a compare point's ``>``/``<`` include the target
  (``3d6>3`` counts dice of 3 or more, ``5d6!>5`` explodes on 5 and 6);
- ``foundry``: ``r`` rerolls once (``rr`` until it no longer matches); ``cs``/``cf``/``df``
  count;
- ``avrae`` (the d20 library): ``k3``/``p3`` keep or drop the dice *showing* 3 (selectors,
  also ``k>3``, ``p<2``); ``kh``/``kl``/``ph``/``pl`` keep or drop highest/lowest; ``rr``,
  ``ro``, ``ra``, ``e``, ``mi``, ``ma``; ``d%`` is the tens die (0 to 90). d20 applies the
  operations in the order written, so a reroll or explosion after a keep (``4d6kh3ro1``,
  which rerolls only the kept dice) is refused, naming ``4d6ro1kh3``.

A construct a dialect does not have is an error naming the closest spelling it has.
"""

from __future__ import annotations

from typing import Any

import re

import attrs

from runebook.dsl import expr_ast as ex
from runebook.dsl.diagnostics import Diagnostic
from runebook.dsl.source import Source, Span
from runebook.interpreter.core.dice import COMPARE, DieSpec
from runebook.interpreter.core.limits import Limits

__all__ = ["DEFAULT_DIALECT", "DIALECTS", "FOREIGN", "Term", "build_term", "check_dialect", "foreign_hint",
           "roll20_compare"]

#: The dialects, the default first.
DIALECTS = ("runebook", "roll20", "foundry", "avrae")
DEFAULT_DIALECT = "runebook"

_NEGATE = {"=": "!=", ">": "<=", ">=": "<", "<": ">=", "<=": ">", "even": "odd", "odd": "even"}


#: Spellings of the tools that Runebook does not read, each with the closest one it does:
#: (pattern, what it is, what to write). A syntax error in a text holding one says so.
FOREIGN: tuple[tuple[re.Pattern[str], str, str], ...] = tuple((re.compile(p), what, instead) for p, what, instead in (
    (r"\d[dD]\w*R\{", "RANDSUM's reroll 'R{...}'", "write 'r' with a comparison, as in '4d6r<3'"),
    (r"\d[dD]\w*C\{", "RANDSUM's cap 'C{...}'", "clamp with 'min'/'max', as in '4d6max5'"),
    (r"\d[dD]\w*V\{", "RANDSUM's replacement 'V{...}'", "clamp with 'min'/'max', as in '4d6min2'"),
    (r"\d[dD][\w!<>=]*?mt?\d*(?:[<>=]|$|\s)", "Roll20's matches 'm'/'mt'",
     "count dice showing a face, as in 'count(5d6 == 4)'"),
    (r"\d[dD][\w!<>=]*?uo\b|\d[dD][\w!<>=]*?u[<>=]", "rpg-dice-roller's 'uo'/'u=N'", "write 'u': every die unique"),
    (r"^\s*\([^()]*,[^()]*\)\s*$", "d20's set without an operator '(a, b)'",
     "give it one, as in '(1d20, 10)kh1', or add the parts: '1d20 + 10'"),
    (r"\d[dD]\d+[^\s+\-*/()]*[!x]o\b|\d[dD]\d+\S*!o", "an explode-once spelling", "write 'xo', as in '5d10xo>=8'"),
    (r"\d?[dD][fF](?:\.[12])?[a-zA-Z!<>=]", "a modifier on Fudge dice ('4dFkh2')",
     "a Fudge die is a d3 less 2, so keep d3s: '4d3kh2-4' (the two highest of 4dF); or count faces: "
     "'count(4dF == 1)'"),
    (r"(?:^|[^\w.])\d*[dD]\(", "Roll20's computed sides 'd(...)'",
     "Runebook writes the sides as a number, as in '2d6'; the count may be computed: '(1 + 1)d6'"),
    (r"\d[dD]\d+\w*?(?:r|rr|x|xo)\d+(?:>=|<=|>|<|=)\d", "Foundry's capped reroll 'r1=1' (at most one die)",
     "Runebook rerolls every matching die, as in '4d6r1'"),
    (r"\d[dD][\w%]*?\d=\d", "a success target written '=N' ('3d6=6')",
     "Runebook writes it with '==', as in '3d6 == 6' (the number of dice showing 6)"),
    (r"\d[dD][\w!<>=]*?sf(?:[<>=\d]|\b)", "Foundry's 'sf' (a failed die counts as minus its face)",
     "Runebook deducts one for each failure with 'df', as in '6d10cs>7df<3'"),
    (r"(?:^|[^\w])\d+[dD][cC]\b", "Foundry's coin 'dc'",
     "Runebook writes a coin as 'd{0,1}' (heads 1, tails 0), as in '4d{0,1}'"),
    (r"\d\s*@\s*\d*[dD]", "AnyDice's position '1@3d6'",
     "Runebook keeps dice: '3d6kh1' is the highest die of 3d6, '3d6kl1' the lowest"),
    (r"\[\s*(?:highest|lowest|middle)\s+\d+\s+of\b|\[\s*explode\s|\[\s*count\s*\{",
     "an AnyDice function call ('[highest 3 of 4d6]')",
     "Runebook writes '[highest 3 of 4d6]' as '4d6kh3', '[lowest 1 of 2d20]' as '2d20kl1', '[explode d6]' as "
     "'d6!' and '[count {5,6} in 5d6]' as 'count(5d6 >= 5)'"),
    (r"(?:^|[^\w])\d*z\d+\b", "Troll's die from zero 'z6'",
     "Runebook lists the faces: 'z6' (0 to 6) is 'd{0..6}'"),
    (r"\b(?:largest|least)\s+\d+\s", "Troll's 'largest 3 4d6'",
     "Runebook keeps dice: 'largest 3 4d6' is '4d6kh3', 'least 1 2d20' is '2d20kl1'"),
    (r"\bcount\s*(?:>=|<=|>|<|=)?\s*\d+\s*(?:>=|<=|>|<|=)?\s+\d*[dD]\d", "Troll's count of a filter ('count 5 < 6d10')",
     "Runebook compares the pool with a number, die by die: 'count(6d10 > 5)' counts the dice over 5"),
    (r"\bsum\s+\d*[dD]\d", "Troll's 'sum 3d6'", "a pool is its sum: '3d6' (or 'sum(3d6)')"),
    (r"\[\[", "Roll20's inline roll '[[...]]'", "Runebook writes it in parentheses: '[[1d4]]d6' is '(1d4)d6'"),
    (r"@[A-Za-z_]", "Foundry's roll data '@name'",
     "Runebook reads a name without '@' (from a ruleset, a character or env=): '1d20 + prof'"),
    (r"^\s*/(?:r|roll|gmr|gmroll|br|blindroll|sr|selfroll)\b", "a chat command ('/roll')",
     "Runebook takes the formula alone, as in: runebook roll \"4d6kh3\""),
    (r"^\s*output\s", "AnyDice's 'output'", "Runebook shows the odds with: runebook odds \"3d6\""),
    (r"(?i)\b(?:keep|drop)\s+(?:the\s+)?(?:highest|lowest|best|worst|high|low)\b|(?<!\[)\b(?:highest|lowest)\s+\d+\s+of\b",
     "keeping or dropping dice in words ('4d6 drop lowest')",
     "write the keep after the dice: '4d6 keep highest 3' is '4d6kh3', '4d6 drop lowest' is '4d6dl1', "
     "'highest 1 of 2d20' is '2d20kh1', 'lowest 1 of 2d20' is '2d20kl1'"),
    (r"\d[dD]\d+[\w!<>=]*?(?:KH|KL|DH|DL|RO|RR|CS|CF|K|X|R)(?![a-z])", "a modifier in capitals ('4d6KH3')",
     "Runebook writes modifiers in lower case, as in '4d6kh3' ('L', 'H' and 'U' are RANDSUM's)"),
))


def foreign_hint(text: str) -> tuple[str, str] | None:
    """(what, instead) for the first foreign spelling in ``text``, if any."""
    for pattern, what, instead in FOREIGN:
        if pattern.search(text):
            return what, instead
    return None


def roll20_compare(op: str, dialect: str) -> str:
    """Roll20 reads a compare point's ``>`` as "or more" and ``<`` as "or less"
    (``3d6>3`` counts threes); the other tools read them strictly."""
    if dialect == "roll20":
        return {">": ">=", "<": "<="}.get(op, op)
    return op


def check_dialect(dialect: str) -> str:
    """The dialect's name, or ValueError listing the dialects."""
    if dialect not in DIALECTS:
        raise ValueError(f"unknown dialect {dialect!r}: choose one of {', '.join(DIALECTS)}")
    return dialect


@attrs.frozen
class Term:
    """What a dice term's modifiers mean.

    ``select``: per-die filters whose kept dice are summed (d20's ``k3``, ``p<2``).
    ``margin``: ``(op, target)`` of a margin of success (``ms>=10``): the total less the
    target (the target less the total for ``<``/``<=``).
    """

    die: DieSpec
    keep: tuple[str, int] | None = None
    score: tuple[tuple[int, str, int], ...] = ()
    counting: str | None = None
    select: tuple[tuple[str, int], ...] = ()
    margin: tuple[str, int] | None = None
    crits: tuple[tuple[str, str, int], ...] = ()
    order: str | None = None
    unique: bool = False


def build_term(node: ex.Dice, source: Source | None, limits: Limits, diagnostics: list[Diagnostic],
               dialect: str = DEFAULT_DIALECT) -> Term:
    """The die, keep rule, counting and other rules of a dice term in ``dialect``;
    problems go to ``diagnostics``."""

    def problem(code: str, span: Span | None, **fields: Any) -> None:
        help = fields.pop("help", None)
        diagnostics.append(Diagnostic.make(code, source, span, help=help, **fields))

    def unsupported(mod: ex.DiceModifier, what: str, instead: str) -> None:
        problem("E0403", mod.span or node.span,
                message=f"'{mod}' is not supported in the {dialect} dialect ({what})", help=instead)

    faces = _faces(node, limits, problem)
    die = node.die
    label = str(die)
    avrae = dialect == "avrae"
    if avrae and isinstance(die, ex.SidesDie) and die.sides == "%":
        faces = tuple(range(0, 100, 10))  # d20's d% is the tens die of a percentile roll: 0, 10, ..., 90
    # A die of sides 1..N (up to a million): its faces as a range, so that the faces a
    # comparison picks are worked out from the range's ends, not face by face.
    distinct: range | list[int] = range(1, len(faces) + 1) if isinstance(die, ex.SidesDie) and \
        isinstance(die.sides, int) and len(faces) == die.sides else sorted(set(faces))
    keep: tuple[str, int] | None = None
    select: list[tuple[str, int]] = []
    reroll: set[int] = set()
    reroll_kind = None
    explode: set[int] = set()
    explode_kind = None
    score: list[tuple[int, str, int]] = []
    counting = None
    crits: list[tuple[str, str, int]] = []
    margin = None
    order = None
    unique = False
    low = high = None
    unsuccessful: list[tuple[int, Span | None]] = []  # bare 'df's: (index in score, where)
    for mod in node.modifiers:
        op = mod.op
        compare_op = roll20_compare(mod.compare or "=", dialect)
        where = mod.span or node.span
        if op in ("kh", "kl", "dh", "dl", "ph", "pl", "k", "p", "d", "L", "H"):
            if op in ("k", "p") and (mod.compare is not None or avrae):
                if mod.value is None:
                    problem("E0403", where, message=f"'{op}' needs a selector",
                            help=f"as in '{op}3' (dice showing 3), '{op}>3', '{op}h1' or '{op}l1'")
                    continue
                select.append((compare_op if op == "k" else _NEGATE[compare_op], mod.value))
                continue
            if op == "p":
                unsupported(mod, "d20's 'p3' drops the dice showing 3", "write 'dl1' to drop the lowest die, "
                            "or use the avrae dialect (--dialect avrae) where 'p3' drops the 3s")
                continue
            if mod.compare is not None:
                problem("E0403", where, message=f"'{op}' takes a number of dice, not a comparison",
                        help=f"write '{op}{mod.value}'")
                continue
            mode = {"k": "kh", "ph": "dh", "pl": "dl", "d": "dl", "L": "dl", "H": "dh"}.get(op, op)
            if keep is not None:
                problem("E0403", where, message="a pool can have only one keep or drop rule",
                        help=f"write one, as in '{node.count if isinstance(node.count, ex.Number) else ''}"
                             f"{label}{keep[0]}{keep[1]}'")
                continue
            keep = (mode, 1 if mod.value is None else mod.value)
            continue
        if avrae and (keep is not None or select) and op in ("x", "!", "!!", "!p", "xo", "e", "r", "ro", "rr", "ra"):
            # d20 applies the operations in the order written: 'kh3ro1' rerolls only the kept dice.
            unsupported(mod, f"d20 would {'reroll' if op.startswith('r') else 'explode'} only the dice kept so far",
                        f"Runebook rerolls and explodes before it keeps: write '{mod}' before the keep or drop, as "
                        f"in '4d6{mod}kh3'")
            continue
        if op in ("x", "!", "!!", "!p", "xo", "e"):
            target = mod.value if mod.value is not None else max(faces)
            matched = _matching(distinct, compare_op, target)
            kind = {"!!": "compound", "!p": "penetrate", "xo": "once"}.get(op, "explode")
            if explode_kind is not None and explode_kind != kind:
                problem("E0403", where, message="a die explodes one way only ('!', '!!', '!p' or 'xo')",
                        help=f"keep one of them, as in '{label}!' or '{label}!!'")
            explode_kind = kind
            explode |= matched
            continue
        if op in ("r", "ro", "rr", "ra"):
            if op == "r" and avrae:
                unsupported(mod, "d20 spells rerolls 'rr' and 'ro'", "write 'rr' to reroll until the face no longer "
                            "matches, or 'ro' to reroll once")
                continue
            target = mod.value if mod.value is not None else min(faces)
            matched = _matching(distinct, compare_op, target)
            if op == "ra" and avrae and not (node.count is None or
                                             (isinstance(node.count, ex.Number) and node.count.value <= 1)):
                unsupported(mod, "d20 adds one die for the first die that matches, not one for each",
                            f"write 'xo' to add one for each ('{node.count if isinstance(node.count, ex.Number) else 3}"
                            f"{label}xo{(mod.compare or '')}{'' if mod.value is None else mod.value}'), or roll that die "
                            f"apart: '1{label}{mod}'")
                continue
            if op == "ra":
                # d20's reroll-and-add: one more die, kept with the first (an explosion once).
                if explode_kind is not None and explode_kind != "once":
                    problem("E0403", where, message="a die explodes one way only ('!', '!!', '!p' or 'xo')",
                            help=f"keep one of them, as in '{label}!' or '{label}!!'")
                explode_kind = "once"
                explode |= matched
                continue
            kind = "ro" if op == "ro" or (op == "r" and dialect == "foundry") else "r"
            if reroll_kind is not None and reroll_kind != kind:
                problem("E0403", where, message="a die cannot both reroll once and reroll until it stops matching",
                        help=f"reroll one way, naming every face, as in '{label}r<3' or '{label}ro<3'")
            reroll_kind = kind
            reroll |= matched
            continue
        if op in ("even", "odd"):
            # Foundry's 'even'/'odd': the pool's number is how many dice show an even (odd) face.
            if avrae:
                unsupported(mod, "d20 has no success counting", "count with a per-die test instead, as in "
                            "'count(each(4d6) % 2 == 0)'; or use --dialect foundry")
                continue
            if counting is not None and counting != "successes":
                problem("E0403", where, message=f"'{op}' counts dice as successes; 'cf' counts failures",
                        help=f"count one of them, as in '6d6{op}'")
            counting = "successes"
            score.append((1, op, 2))
            continue
        if op in ("cs", "cf", "df"):
            default = max(faces) if op == "cs" else min(faces)
            target = mod.value if mod.value is not None else default
            if avrae:
                unsupported(mod, "d20 has no success counting", "count with a comparison instead, as in "
                            "'sum(6d10 >= 8)' for successes; or use --dialect foundry")
                continue
            if dialect == "roll20" and op in ("cs", "cf"):
                crits.append(("success" if op == "cs" else "failure", compare_op, target))
                continue
            if dialect == "roll20":
                unsupported(mod, "'df' is Foundry's", "deduct failures from a success target with 'f', as in '6d10>7f1'")
                continue
            kind = "failures" if op == "cf" else "successes"
            if counting is not None and counting != kind:
                problem("E0403", where, message="'cf' counts failures alone",
                        help="to take failures off successes write 'df', as in '6d10cs>=8df1'")
            counting = kind
            if op == "df" and mod.value is None and mod.compare is None:
                # Foundry: a bare 'df' deducts the dice that are not successes ('6d6cs>3df').
                unsuccessful.append((len(score), where))
            score.append((-1 if op == "df" else 1, compare_op, target))
            continue
        if op == "ms":
            if mod.value is None:
                problem("E0403", where, message="'ms' needs a target", help="as in '3d6ms>=10' or '1d100ms<=45'")
                continue
            margin = (roll20_compare(mod.compare or ">=", dialect), mod.value)
            continue
        if op in ("min", "mi"):
            low = mod.value
            continue
        if op in ("max", "ma"):
            high = mod.value
            continue
        if op in ("sa", "sd"):
            order = op
            continue
        if op == "u":
            unique = True
            continue
    if reroll and len(reroll) >= len(distinct):  # every face (the faces matched are some of them)
        problem("E0411", node.span, die=label, help="reroll only some faces, as in 'r1' or 'r<3'")
        reroll = set()
    live = distinct if not reroll or reroll_kind == "ro" else [f for f in distinct if f not in reroll]
    if explode and live and explode >= set(live) and explode_kind != "once":
        problem("E0407", node.span, die=label, help="explode on some faces only, as in 'x10' or '!>=9'")
        explode = set()
    successes = [(op, target) for w, op, target in score if w > 0]
    for index, where in unsuccessful:
        if len(successes) == 1:
            op, target = successes[0]
            score[index] = (-1, _NEGATE[op], target)
        elif successes:
            problem("E0403", where, message="a bare 'df' deducts the dice that are not successes, "
                    "which several 'cs' leave unclear", help="give 'df' its target, as in '6d10cs>=8cs10df1'")
    if score and all(w < 0 for w, _, _ in score):
        problem("E0403", node.span, message="'df' deducts failures from successes counted with 'cs'",
                help="add the successes, as in '6d10cs>=8df1'")
    if (low is not None or high is not None) and explode:
        problem("E0403", node.span, message="a die cannot both explode and be clamped with min/max",
                help="clamp a plain die, as in '4d6min2'")
    if explode_kind in ("penetrate", "once") and explode and keep is not None:
        problem("E0403", node.span, message=f"keep/drop with '{'!p' if explode_kind == 'penetrate' else 'xo'}' "
                "dice is not supported", help="keep or drop with '!' explosions, as in '4d6!kh3'")
    if margin is not None and (score or crits or select):
        problem("E0403", node.span, message="'ms' reads the total of the dice",
                help="use it without success counting, as in '3d6ms>=10'")
    if unique:
        count = node.count.value if isinstance(node.count, ex.Number) else None
        if len(set(faces)) != len(faces) or reroll or explode or low is not None or high is not None:
            problem("E0403", node.span, message="unique dice ('u') are plain dice with distinct faces",
                    help="drop the rerolls, explosions and clamps, as in '4d6u'")
            unique = False
        elif count is not None and count > len(faces):
            problem("E0403", node.span, message=f"{count} dice cannot all show different faces of a {label}",
                    help=f"roll at most {len(faces)}, as in '{len(faces)}{label}u'")
            unique = False
    spec = DieSpec(label, faces, frozenset(reroll), reroll_kind == "ro", frozenset(explode),
                   explode_kind == "compound", explode_kind == "penetrate", explode_kind == "once", low, high)
    return Term(spec, keep, tuple(score), counting, tuple(select), margin, tuple(crits), order, unique)


_RANGE_COMPARES = frozenset({"=", "==", "!=", ">=", ">", "<=", "<"})


def _matching(distinct: range | list[int], compare: str, target: int) -> set[int]:
    """The faces among ``distinct`` for which ``face COMPARE target`` holds."""
    if type(distinct) is not range or type(target) is not int or compare not in _RANGE_COMPARES:
        return {f for f in distinct if COMPARE[compare](f, target)}
    low, high = distinct.start, distinct.stop  # faces low .. high - 1
    if compare in ("=", "=="):
        return {target} if low <= target < high else set()
    if compare == "!=":
        return set(distinct) - {target}
    bounds = {">=": (target, high), ">": (target + 1, high), "<=": (low, target + 1), "<": (low, target)}
    start, stop = bounds[compare]
    return set(range(max(low, start), min(high, stop)))


def _faces(node: ex.Dice, limits: Limits, problem: Any) -> tuple[int, ...]:
    die = node.die
    if isinstance(die, ex.SidesDie) and isinstance(die.sides, int):
        if die.sides < 1:
            problem("E0401", die.span or node.span, help="a die has at least one side: d1, d2, d6, ...")
            return (1,)
        if die.sides > limits.max_sides:
            problem("E0901", die.span or node.span, what=f"a die with {die.sides} sides", limit=limits.max_sides)
            return (1,)
        return die.faces()
    faces = die.faces()
    if not faces:
        problem("E0401", die.span or node.span)
        return (1,)
    if len(faces) > limits.max_sides:  # a long range: `d{1..10000000}`
        problem("E0901", die.span or node.span, what=f"a die with {len(faces)} faces", limit=limits.max_sides,
                help=f"list at most {limits.max_sides:,} faces")
        return (1,)
    return faces
