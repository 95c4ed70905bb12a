"""A faster driver for the grammar's own LALR tables, lexers and callbacks.

Lark's parse loop spends much of its time on generality this grammar does not need: a
generator per layer (lexer, post-lexer, parser), a ``Rule`` object hashed and compared
on every reduction, a line counter object per token. :class:`FastDriver` runs the same
tables, the same contextual scanners (the regular expressions Lark compiled for each
parser state) and the same rule callbacks in one loop, with the post-lexer's newline
handling inlined, so for valid input it yields exactly what ``Lark.parse`` yields.

It never reports errors: on any input it cannot take (a character no terminal matches, a
token the state does not accept) it raises :class:`Fallback`, and the caller parses the
same text with Lark itself, which produces the usual exception and diagnostics.
"""

from __future__ import annotations

import inspect
from functools import partial
from typing import Any

from lark import Lark, Token, Transformer
from lark.parse_tree_builder import maybe_create_child_filter
from lark.parsers.lalr_analysis import Shift

__all__ = ["Fallback", "FastDriver"]


class Fallback(Exception):
    """The fast driver cannot take this input: parse it with Lark for the real error."""


class FastDriver:
    """Runs a Lark LALR parser (contextual lexer, line post-lexer) without Lark's loop.

    Actions are stored per state as ``{terminal: int | tuple}``: an int is the state to
    shift to; a tuple ``(size, callback, nonterminal)`` is a reduction.
    """

    def __init__(self, lark: Lark) -> None:
        frontend = lark.parser
        inner = frontend.parser.parser
        table = inner.parse_table
        callbacks = inner.callbacks
        transformer = lark.options.transformer
        if any(isinstance(key, str) for key in callbacks):
            raise ValueError("terminal callbacks are not supported by the fast driver")
        reductions: dict[int, tuple[int, Any, str]] = {}
        self.actions: dict[int, dict[str, Any]] = {}
        for state, row in table.states.items():
            out: dict[str, Any] = {}
            for symbol, (action, arg) in row.items():
                if action is Shift:
                    out[str(symbol)] = arg
                else:
                    key = id(arg)
                    if key not in reductions:
                        callback = None if _passes_through(arg) else _direct_callback(arg, transformer, callbacks[arg])
                        reductions[key] = (len(arg.expansion), callback, str(arg.origin.name))
                    out[str(symbol)] = reductions[key]
            self.actions[state] = out
        self.start_states = dict(table.start_states)
        self.end_states = dict(table.end_states)
        # Terminals no rule keeps (punctuation such as "[", `_NL`): the rules' callbacks
        # never see them, so they are shifted as None instead of as a Token.
        kept = {str(symbol.name) for rule in lark.rules for symbol in rule.expansion
                if symbol.is_term and (rule.options.keep_all_tokens or not symbol.filter_out)}
        terminals = {str(t.name) for t in lark.terminals} | {"_NL", "_BLANK", "INDENT"}
        self.dropped = frozenset(terminals - kept)
        contextual = frontend.lexer.lexer
        self.scanners: dict[int, tuple[Any, tuple[Any, ...], frozenset[str], dict[str, Any], frozenset[str]]] = {}
        for state, basic in contextual.lexers.items():
            scanner = basic.scanner  # builds basic.callback too
            matchers = tuple(mre.match for mre in scanner._mres)
            # Names as plain strings: Lark keeps some as Token objects, slow to compare.
            lexer_callbacks = {str(name): f for name, f in basic.callback.items()}
            # Terminals that need more than making a token: ignored ones, those with a
            # callback (keywords inside WORD), and NEWLINE for the post-lexer.
            special = frozenset(map(str, basic.ignore_types)) | frozenset(lexer_callbacks) | {"NEWLINE"}
            self.scanners[state] = (matchers[0], matchers[1:], special, lexer_callbacks,
                                    frozenset(map(str, basic.ignore_types)))

    def parse(self, text: str, start: int, end: int, start_symbol: str) -> Any:
        """Parse ``text[start:end]`` (positions those of the whole text) from ``start_symbol``.

        Line counting looks for newlines in every token's text, which is what Lark's line
        counter gives too: it skips only terminals whose pattern cannot match a newline.
        """
        actions = self.actions
        scanners = self.scanners
        end_state = self.end_states[start_symbol]
        state_stack = [self.start_states[start_symbol]]
        value_stack: list[Any] = []
        line = text.count("\n", 0, start) + 1
        line_start = text.rfind("\n", 0, start) + 1
        pos = start
        new_token = getattr(Token, "_future_new", Token)
        dropped = self.dropped
        while pos < end:
            first_match, other_matches, special, lexer_callbacks, ignore = scanners[state_stack[-1]]
            match = first_match(text, pos, end)
            if match is None:
                for other in other_matches:
                    match = other(text, pos, end)
                    if match is not None:
                        break
                else:
                    raise Fallback
            value = match.group()
            kind = match.lastgroup
            if not value:
                raise Fallback
            token_pos = pos
            pos += len(value)
            if kind not in special:
                if "\n" in value:
                    token_line, column = line, token_pos - line_start + 1
                    line += value.count("\n")
                    line_start = token_pos + value.rindex("\n") + 1
                    token = new_token(kind, value, token_pos, token_line, column, line, pos - line_start + 1, pos)
                elif kind in dropped:
                    token = None
                else:
                    token = new_token(kind, value, token_pos, line, token_pos - line_start + 1, line,
                                      pos - line_start + 1, pos)
            else:
                token_line, column = line, token_pos - line_start + 1
                if "\n" in value:
                    line += value.count("\n")
                    line_start = token_pos + value.rindex("\n") + 1
                if kind in ignore:
                    continue
                if kind == "NEWLINE" and kind not in lexer_callbacks:
                    # The post-lexer (dsl.parser.LinePostLexer), inlined.
                    lines = value.split("\n")[1:]
                    indent = lines[-1]
                    if indent:
                        kind = "INDENT"
                        token = new_token("INDENT", indent, pos - len(indent), line, 1, line, len(indent) + 1, pos)
                    else:
                        kind = "_BLANK" if any(not part.strip() for part in lines[:-1]) else "_NL"
                        token = None if kind in dropped else new_token(
                            kind, value, token_pos, token_line, column, line, pos - line_start + 1, pos)
                else:
                    token = new_token(kind, value, token_pos, token_line, column, line, pos - line_start + 1, pos)
                    if kind in lexer_callbacks:
                        token = lexer_callbacks[kind](token)
                        kind = token.type
                    if kind == "NEWLINE":
                        raise Fallback  # a callback on NEWLINE: not this grammar; let Lark run it
            # Feed the token: reduce as far as needed, then shift it.
            while True:
                try:
                    action = actions[state_stack[-1]][kind]
                except KeyError:
                    raise Fallback from None
                if action.__class__ is int:
                    state_stack.append(action)
                    value_stack.append(token)
                    break
                size, callback, origin = action
                if callback is None:
                    # `?rule: child`: the child's value stands for the rule.
                    state_stack[-1] = actions[state_stack[-2]][origin]
                    continue
                if size:
                    children = value_stack[-size:]
                    del state_stack[-size:]
                    del value_stack[-size:]
                else:
                    children = []
                value_stack.append(callback(children))
                state_stack.append(actions[state_stack[-1]][origin])
        # End of input: the same reductions as above, written out again rather than shared
        # through a function because a call per reduction is a measurable share of parsing.
        while True:
            try:
                action = actions[state_stack[-1]]["$END"]
            except KeyError:
                raise Fallback from None
            if action.__class__ is int:
                raise Fallback
            size, callback, origin = action
            if callback is None:
                state_stack[-1] = actions[state_stack[-2]][origin]
            else:
                if size:
                    children = value_stack[-size:]
                    del state_stack[-size:]
                    del value_stack[-size:]
                else:
                    children = []
                value_stack.append(callback(children))
                state_stack.append(actions[state_stack[-1]][origin])
            if state_stack[-1] == end_state:
                return value_stack[-1]


def _passes_through(rule: Any) -> bool:
    """Whether a reduction by ``rule`` gives its one child unchanged.

    That is Lark's single-child expansion (``?rule: child``, no alias) of a one-symbol
    expansion whose symbol is kept as is: not a filtered token, not an inlined ``_rule``,
    no placeholders added for an omitted ``[optional]``.
    """
    if not rule.options.expand1 or rule.alias or len(rule.expansion) != 1:
        return False
    if any(rule.options.empty_indices or ()):
        return False
    (symbol,) = rule.expansion
    if symbol.is_term:
        return bool(rule.options.keep_all_tokens) or not symbol.filter_out
    return not symbol.name.startswith("_")


class _Children:
    """What an inlined helper rule (``_rule``, ``__rule_plus_1``) gives its parent: the
    parent takes its ``children`` (in place of the ``Tree`` Lark would build)."""

    __slots__ = ("children",)

    def __init__(self, children: list[Any]) -> None:
        self.children = children


def _direct_callback(rule: Any, transformer: Any, lark_callback: Any) -> Any:
    """The rule's callback with Lark's wrapper layers folded into one closure.

    Same steps as Lark's parse-tree builder for this grammar: filter the children (drop
    filtered tokens, splice inlined ``_rules``, add ``None`` for omitted ``[optional]``
    parts), give a lone child through for ``?rule``, then call the transformer's method
    through its ``v_args`` wrapper. Anything else keeps Lark's own callback.
    """
    options = rule.options
    name = rule.alias or options.template_source or rule.origin.name
    method = getattr(transformer, name, None) if transformer is not None else None
    if method is not None:
        wrapper = getattr(method, "visit_wrapper", None)
        base = getattr(method, "base_func", None)
        if wrapper is None or base is None or wrapper.__module__.startswith("lark"):
            return lark_callback
        label = str(name)
        if getattr(base, "spanless", False):
            # The method never reads its position (dsl.expr_builder.spanless): none is made.
            def node(children: list[Any]) -> Any:
                return base(None, children)
        elif _meta_is_optional(wrapper):
            node = partial(wrapper, base, label)
        else:
            def node(children: list[Any]) -> Any:
                return wrapper(base, label, children, None)
    elif (str(rule.origin.name).startswith("_") and transformer is not None
          and type(transformer).__default__ is Transformer.__default__):
        node = _Children
    else:
        return lark_callback
    if options.expand1 and not rule.alias:
        inner = node

        def node(children: list[Any]) -> Any:
            return children[0] if len(children) == 1 else inner(children)
    made = maybe_create_child_filter(rule.expansion, options.keep_all_tokens, False, options.empty_indices)
    if made is None:
        return node
    if len(made.args) == 1:  # without placeholders: [(index, splice)]
        plan = tuple((i, splice, 0) for i, splice in made.args[0])
        trailing = 0
    else:
        plan = tuple(made.args[0])
        trailing = made.args[1]
    if not trailing and not any(splice or nones for _, splice, nones in plan):
        kept = tuple(i for i, _, _ in plan)
        return lambda children: node([children[i] for i in kept])
    if not trailing and plan == ((0, True, 0),):
        return lambda children: node(children[0].children)
    if not trailing and plan == ((0, True, 0), (1, False, 0)) and node is _Children:
        # A left-recursive helper list (`x+`, `x*`) grows by one: extend it in place,
        # as Lark's filter does with the same list.
        def grow(children: list[Any]) -> Any:
            head = children[0]
            head.children.append(children[1])
            return head

        return grow

    def run(children: list[Any]) -> Any:
        filtered: list[Any] = []
        for i, splice, nones in plan:
            if nones:
                filtered += [None] * nones
            if splice:
                if filtered:
                    filtered += children[i].children
                else:  # left recursion: take the list over
                    filtered = children[i].children
            else:
                filtered.append(children[i])
        if trailing:
            filtered += [None] * trailing
        return node(filtered)

    return run


def _meta_is_optional(wrapper: Any) -> bool:
    """Whether a ``v_args`` wrapper can be called without its last (meta) argument."""
    try:
        parameters = list(inspect.signature(wrapper).parameters.values())
    except (TypeError, ValueError):
        return False
    return len(parameters) == 4 and parameters[3].default is None
