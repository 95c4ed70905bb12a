"""Make the pictures in docs/editors.md from the real thing.

    python editors/screenshots.py

``docs/images/editor-highlight.svg``: a shipped power and check, highlighted by the Pygments
lexer (the TextMate grammar gives VS Code the same token classes).
``docs/images/editor-hover.svg``: the hover `runebook lsp` answers over the Check line of
Berserker Charge, with Itzel acting against the inquisitor — asked over stdio, as an editor
asks, and drawn as text.
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from pygments import highlight  # noqa: E402
from pygments.formatters import SvgFormatter  # noqa: E402
from pygments.lexers.special import TextLexer  # noqa: E402

from bench_lsp import Client  # noqa: E402
from runebook.interpreter.lsp.lexer import RunebookLexer  # noqa: E402

MESTEZIA = REPO / "rulesets" / "mestezia"
IMAGES = REPO / "docs" / "images"


def _svg(code: str, lexer: object) -> str:
    svg = highlight(code, lexer, SvgFormatter(fontfamily="DejaVu Sans Mono, monospace", fontsize="14px",
                                               linenos=False))
    height = 20 * (code.count("\n") + 2)
    width = 9 * max(len(line) for line in code.split("\n")) + 30
    # A white page behind the text, sized to it (the formatter draws only the text).
    return svg.replace("<g font-family", f'<rect width="{width}" height="{height}" fill="white"/>\n<g font-family', 1) \
              .replace("<svg xmlns", f'<svg width="{width}" height="{height}" xmlns', 1)


def hover_text() -> str:
    path = MESTEZIA / "powers.rules"
    text = path.read_text(encoding="utf-8")
    line = text.split("\n").index("Check: [Attack + Strength]")
    client = Client()
    request = client.send("initialize", {"processId": None, "rootUri": None, "capabilities": {},
                                         "initializationOptions": {
                                             "actor": str(MESTEZIA / "examples" / "itzel.yaml"),
                                             "target": str(MESTEZIA / "examples" / "inquisitor.yaml")}}, request=True)
    client.wait(lambda m: m.get("id") == request)
    client.send("initialized", {})
    client.send("textDocument/didOpen", {"textDocument": {"uri": path.as_uri(), "languageId": "runebook",
                                                          "version": 1, "text": text}})
    request = client.send("textDocument/hover", {"textDocument": {"uri": path.as_uri()},
                                                 "position": {"line": line, "character": 2}}, request=True)
    reply = client.wait(lambda m: m.get("id") == request)
    client.close()
    shown = reply["result"]["contents"]["value"].replace("```text\n", "").replace("```", "").replace("**", "")
    return f"Check: [Attack + Strength]\n{'─' * 60}\n{shown.strip()}\n"


def main() -> int:
    IMAGES.mkdir(parents=True, exist_ok=True)
    powers = (MESTEZIA / "powers.rules").read_text(encoding="utf-8").split("\n")
    mechanics = (MESTEZIA / "mechanics.rules").read_text(encoding="utf-8").split("\n")
    start = powers.index("Berserker Charge")
    check = next(i for i, t in enumerate(mechanics) if t.startswith("check Skill Check"))
    code = "\n".join(powers[start:start + 8] + [""] + mechanics[check - 3:check + 5]) + "\n"
    (IMAGES / "editor-highlight.svg").write_text(_svg(code, RunebookLexer()), encoding="utf-8")
    (IMAGES / "editor-hover.svg").write_text(_svg(hover_text(), TextLexer()), encoding="utf-8")
    print(f"wrote {IMAGES / 'editor-highlight.svg'} and {IMAGES / 'editor-hover.svg'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
