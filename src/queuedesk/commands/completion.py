"""`queuedesk completion bash|zsh`: the shell's completion script, generated from the parser itself
(shtab), so every command and option the command line has is completed, and nothing else."""

import argparse
import sys

SHELLS = ("bash", "zsh")

COMPLETION_HELP = """\
Prints the completion script for your shell. Install it once:

  bash:  queuedesk completion bash > ~/.local/share/bash-completion/completions/queuedesk
  zsh:   queuedesk completion zsh > ~/.zfunc/_queuedesk
         (with `fpath+=~/.zfunc; autoload -Uz compinit; compinit` in ~/.zshrc)

then open a new shell. Generate it again after upgrading QueueDesk.
"""


def add_parser(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    completion = commands.add_parser(
        "completion",
        help="print the shell completion script (bash or zsh)",
        description=COMPLETION_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    completion.add_argument("completion_shell", metavar="SHELL", choices=SHELLS, help="bash or zsh")


def script(shell: str, parser: argparse.ArgumentParser) -> str:
    import shtab

    return str(shtab.complete(parser, shell=shell))


def run(shell: str, parser: argparse.ArgumentParser) -> int:
    sys.stdout.write(script(shell, parser))
    return 0
