"""`runebook completion bash|zsh|fish`: a shell completion script.

The script completes commands and their options (read from the command line's own parser,
so a new flag completes without touching this file), game names, and the checks and
procedures of the game already typed, which it asks of `runebook completion --names GAME`
(the game loaded by the same code `run` uses).
"""

from __future__ import annotations

import argparse
import sys

from runebook.dsl.loader import builtin_games
from runebook.interpreter.cli.commands import EXIT_OK, EXIT_USAGE
from runebook.interpreter.rules import load

__all__ = ["register", "run"]

SHELLS = ("bash", "zsh", "fish")
#: Commands whose first two words are a game and one of its checks or procedures.
_GAME_COMMANDS = ("resolve", "run", "odds")


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("completion", help="print a shell completion script (bash, zsh, fish)",
                            description="Print a completion script: eval \"$(runebook completion bash)\" in "
                            "~/.bashrc, runebook completion fish > ~/.config/fish/completions/runebook.fish, or "
                            "for zsh: runebook completion zsh > ~/.zfunc/_runebook (with ~/.zfunc in fpath).")
    parser.add_argument("shell", nargs="?", choices=SHELLS, help="the shell")
    parser.add_argument("--names", metavar="GAME", help=argparse.SUPPRESS)
    # The other commands are registered by the time this runs: their parsers are read then.
    parser.set_defaults(handler=run, subcommands=sub)


def _commands(sub: argparse._SubParsersAction) -> dict[str, list[str]]:
    """Each command with its option strings."""
    return {name: sorted(o for a in parser._actions for o in a.option_strings
                         if o.startswith("--") and a.help != argparse.SUPPRESS)
            for name, parser in sub.choices.items()}


def _names(game: str) -> list[str]:
    """The checks and procedures of a game, for completing the word after it (nothing when
    the game does not load: completion must never print an error into a prompt)."""
    try:
        rules = load(game)
    except Exception:  # noqa: BLE001 - a half-typed game name is normal here
        return []
    return sorted({c.name for c in rules.checks.values()} | {p.name for p in rules.procedures.values()})


def run(args: argparse.Namespace) -> int:
    if args.names is not None:
        for name in _names(args.names):
            print(name)
        return EXIT_OK
    if args.shell is None:
        print("runebook completion: name a shell: bash, zsh or fish", file=sys.stderr)
        return EXIT_USAGE
    commands = _commands(args.subcommands)
    games = sorted(p.name for p in builtin_games().values())
    sys.stdout.write(_SCRIPTS[args.shell](commands, games))
    return EXIT_OK


def _bash(commands: dict[str, list[str]], games: list[str]) -> str:
    cases = "\n".join(f'        {name}) opts="{" ".join(options)}" ;;' for name, options in commands.items())
    return f"""# runebook completion for bash: eval "$(runebook completion bash)"
_runebook() {{
    local cur="${{COMP_WORDS[COMP_CWORD]}}" IFS=$'\\n'
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W "{chr(10).join(commands)}" -- "$cur"))
        return
    fi
    local opts=""
    case "${{COMP_WORDS[1]}}" in
{cases}
    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "${{opts// /$'\\n'}}" -- "$cur"))
        return
    fi
    case "${{COMP_WORDS[1]}}" in
        {"|".join(_GAME_COMMANDS)})
            if [ "$COMP_CWORD" -eq 2 ]; then
                COMPREPLY=($(compgen -W "{chr(10).join(games)}" -- "$cur") $(compgen -d -- "$cur"))
                return
            elif [ "$COMP_CWORD" -eq 3 ]; then
                local names
                names="$(runebook completion --names "${{COMP_WORDS[2]}}" 2>/dev/null)"
                COMPREPLY=($(compgen -W "$names" -- "$cur"))
                local i
                for i in "${{!COMPREPLY[@]}}"; do COMPREPLY[$i]="$(printf '%q' "${{COMPREPLY[$i]}}")"; done
                return
            fi ;;
        check|fmt|tour)
            if [ "$COMP_CWORD" -eq 2 ] && [ "${{COMP_WORDS[1]}}" = tour ]; then
                COMPREPLY=($(compgen -W "{chr(10).join(games)}" -- "$cur"))
                return
            fi ;;
    esac
    COMPREPLY=($(compgen -f -- "$cur"))
}}
complete -o filenames -F _runebook runebook
"""


def _zsh(commands: dict[str, list[str]], games: list[str]) -> str:
    options = "\n".join(f"        {name}) opts=({' '.join(flags)}) ;;" for name, flags in commands.items())
    return f"""#compdef runebook
# runebook completion for zsh: runebook completion zsh > ~/.zfunc/_runebook
_runebook() {{
    local -a opts names
    if (( CURRENT == 2 )); then
        compadd -- {" ".join(commands)}
        return
    fi
    case "$words[2]" in
{options}
    esac
    if [[ "$words[CURRENT]" == -* ]]; then
        compadd -- $opts
        return
    fi
    case "$words[2]" in
        {"|".join(_GAME_COMMANDS)})
            if (( CURRENT == 3 )); then
                compadd -- {" ".join(games)}
                _files -/
                return
            elif (( CURRENT == 4 )); then
                names=("${{(@f)$(runebook completion --names "$words[3]" 2>/dev/null)}}")
                compadd -Q -- "${{(@q)names}}"
                return
            fi ;;
    esac
    _files
}}
compdef _runebook runebook
"""


def _fish(commands: dict[str, list[str]], games: list[str]) -> str:
    lines = ["# runebook completion for fish: runebook completion fish > ~/.config/fish/completions/runebook.fish",
             "complete -c runebook -f",
             f"complete -c runebook -n __fish_use_subcommand -a '{' '.join(commands)}'"]
    for name, flags in commands.items():
        for flag in flags:
            lines.append(f"complete -c runebook -n '__fish_seen_subcommand_from {name}' -l {flag[2:]}")
    game_commands = " ".join(_GAME_COMMANDS)
    lines.append(f"complete -c runebook -n '__fish_seen_subcommand_from {game_commands}; and "
                 f"test (count (commandline -opc)) -eq 2' -a '{' '.join(games)}'")
    lines.append(f"complete -c runebook -n '__fish_seen_subcommand_from {game_commands}; and "
                 "test (count (commandline -opc)) -eq 3' "
                 "-a '(runebook completion --names (commandline -opc)[3] 2>/dev/null)'")
    lines.append("complete -c runebook -n '__fish_seen_subcommand_from check fmt parse' -F")
    return "\n".join(lines) + "\n"


_SCRIPTS = {"bash": _bash, "zsh": _zsh, "fish": _fish}
