"""Argument parsing and dispatch for the ``ledgerkit`` command."""

from __future__ import annotations

import argparse
import sys
from typing import Callable, Sequence, TextIO

from ledgerkit.cli import commands, output

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every sub-command."""
    parser = argparse.ArgumentParser(prog="ledgerkit", description="Double-entry bookkeeping tools.")
    parser.add_argument("--format", choices=output.FORMATS, default="text", help="output format")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    balance = sub.add_parser("balance", help="account balances")
    balance.add_argument("file", help="ledger text file")
    balance.add_argument("account", nargs="?", help="only this account and its sub-accounts")
    balance.add_argument("--as-of", help="ignore entries after this date (YYYY-MM-DD)")
    balance.set_defaults(handler=commands.cmd_balance)

    tb = sub.add_parser("trial-balance", help="trial balance")
    tb.add_argument("file")
    tb.add_argument("--as-of")
    tb.set_defaults(handler=commands.cmd_trial_balance)

    income = sub.add_parser("income", help="income statement for a period")
    income.add_argument("file")
    income.add_argument("--start", required=True)
    income.add_argument("--end", required=True)
    income.add_argument("--currency", default="USD")
    income.set_defaults(handler=commands.cmd_income)

    imp = sub.add_parser("import-csv", help="convert a CSV bank statement to ledger text")
    imp.add_argument("csv")
    imp.add_argument("--account", required=True, help="the bank account of the statement")
    imp.add_argument("--counter-account", default="Expenses:Uncategorized")
    imp.add_argument("--delimiter", default=",")
    imp.add_argument("--date-format", default="%Y-%m-%d")
    imp.add_argument("--currency", default="USD")
    imp.set_defaults(handler=commands.cmd_import_csv)

    check = sub.add_parser("check", help="validate a ledger file")
    check.add_argument("file")
    check.set_defaults(handler=commands.cmd_check)
    return parser


def main(
    argv: Sequence[str] | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Runs the command line and returns the exit code (0 ok, 1 failure, 2 usage error)."""
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    handler: Callable[[argparse.Namespace], commands.CommandResult] = args.handler
    try:
        result = handler(args)
    except commands.CommandError as error:
        stderr.write(f"ledgerkit: error: {error}\n")
        return EXIT_USAGE
    if result.text is not None:
        stdout.write(result.text)
    else:
        stdout.write(output.render(result.headers, result.rows, args.format))
    return result.exit_code
