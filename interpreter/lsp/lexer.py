"""A Pygments lexer for ``.rules`` files, so docs and READMEs can highlight them.

Registered under the ``pygments.lexers`` entry point (alias ``runebook``, files ``*.rules``)
when Pygments is installed; nothing else in Runebook imports it. A line is read by how it
starts, as the language does: a comment, a declaration keyword, an indented statement, a
``Label:`` line of an entry, or an entry's header; brackets hold expressions.
"""

from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups, default, include
from pygments.token import Comment, Generic, Keyword, Name, Number, Operator, Punctuation, String, Text, Whitespace

__all__ = ["RunebookLexer"]

_DECLARATIONS = ("extends", "uses", "stats", "names", "kind", "option", "levels", "table", "function", "derive",
                 "check", "example", "procedure", "condition", "resource")
_WORDS = ("roll", "let", "result", "set", "input", "choose", "step", "label", "goto", "end", "require", "spend",
          "gain", "apply", "remove", "reset", "pay", "impose", "lift", "do", "use", "modifier", "becomes",
          "implies", "if", "else", "match", "case", "for", "each", "repeat", "next", "stop", "test", "and", "or",
          "not", "in", "where", "then", "as", "of", "on", "is", "from", "to", "with", "true", "false", "none",
          "list", "number", "text", "rating", "required", "repeatable", "graded", "after", "refers", "types",
          "keywords", "lasts", "stacks", "cap", "start", "expect", "dice", "answer", "chance", "refused", "against")


def _words(words: tuple[str, ...]) -> str:
    return r"\b(?:" + "|".join(words) + r")\b"


class RunebookLexer(RegexLexer):
    """Runebook ``.rules`` files: book-notation entries and mechanics declarations."""

    name = "Runebook"
    aliases = ["runebook", "rules"]
    filenames = ["*.rules"]
    mimetypes = ["text/x-runebook"]

    tokens = {
        "root": [
            (r"\n", Whitespace),
            (r"^[ \t]*#.*$", Comment.Single),
            (r"^(" + "|".join(_DECLARATIONS) + r")\b", Keyword.Declaration, "code"),
            # A label line: `Label:`, `Label 2:`, `- **Item**:`, `  Label: type` in a kind.
            (r"^([ \t]*(?:[-*][ \t]+)?)(\*\*[^*\n]+\*\*|[A-Z][\w'’ ]*?)([ \t]+\d+\+?)?([ \t]*:)",
             bygroups(Whitespace, Name.Attribute, Number, Punctuation), "text"),
            (r"^([ \t]*)([-*])([ \t]+)", bygroups(Whitespace, Punctuation, Whitespace), "text"),
            (r"^[ \t]+", Whitespace, "code"),
            (r"^(?=[^\s#])", Text, "header"),
            (r".", Text, "text"),
        ],
        "header": [
            # `replaces Sleep`: the marker of an entry that takes the place of its game's.
            (r"replaces(?=[ \t]+[^\s\[(])", Keyword.Declaration),
            (r"[ \t]+", Whitespace),
            (r"\[[^\]\n]*\]", Name.Tag),
            (r"\([^)\n]*\)", Comment),
            (r"\*+", Generic.Strong),
            (r"[^\[(*\n]+", Name.Class),
            (r".", Text),
            default("#pop"),
        ],
        "text": [
            (r"\[", Punctuation, "bracket"),
            (r"\*\*[^*\n]+\*\*", Generic.Strong),
            (r"\*[^*\n]+\*", Generic.Emph),
            (r"\b\d*d(?:\d+|%)\b", Number),
            (r"\b\d+(?:\.\d+)?\b", Number),
            (r"[^\[*\d\n]+", Text),
            (r".", Text),
            default("#pop"),
        ],
        "code": [
            include("expression"),
            default("#pop"),
        ],
        "bracket": [
            (r"\]", Punctuation, "#pop"),
            include("expression"),
            default("#pop"),
        ],
        "expression": [
            (r"#.*$", Comment.Single),
            (r'"[^"\n]*"?', String.Double),
            (r"\[", Punctuation, "bracket"),
            (_words(_WORDS), Keyword),
            (r"\b\d*d(?:\d+|%|F)(?:[a-z]+\d*)*(?:[<>=]+\d+)?\b", Number),
            (r"\b\d+(?:\.\d+)?(?:[A-Z]\d*)?\b", Number),
            (r"[A-Za-z_][\w']*", Name),
            (r"->|[<>=!]=?|[-+*/%^]", Operator),
            (r"[(),:|.{}\]]", Punctuation),
            (r"[ \t]+", Whitespace),
            (r".", Text),
        ],
    }
