"""Rule-based categorization of imported entries.

Imported entries book their counter side to a fallback account such as
``Expenses:Uncategorized``. A :class:`Categorizer` moves that posting to the
account of the first rule that matches the entry.

Rules can be written one per line (see :func:`load_rules`)::

    contains:STARBUCKS => Expenses:Food:Coffee
    regex:^AMZN\\s+Mktp => Expenses:Shopping
    exact:payee:ACME Corp => Income:Salary
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Iterable

from ledgerkit.core.account import join_name, split_name
from ledgerkit.core.errors import ParseError
from ledgerkit.core.journal import Entry, Posting

MATCH_KINDS = ("contains", "regex", "exact")
FIELDS = ("description", "payee", "memo")
DEFAULT_FALLBACK = "Expenses:Uncategorized"


@dataclass(frozen=True)
class Rule:
    """Matches entries whose ``field`` contains/equals/matches ``pattern`` (case-insensitive)."""

    pattern: str
    account: str
    kind: str = "contains"
    field: str = "description"
    _regex: re.Pattern[str] | None = dataclasses.field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.kind not in MATCH_KINDS:
            raise ValueError(f"unknown match kind {self.kind!r} (expected one of {', '.join(MATCH_KINDS)})")
        if self.field not in FIELDS:
            raise ValueError(f"unknown field {self.field!r} (expected one of {', '.join(FIELDS)})")
        if not self.pattern:
            raise ValueError("a rule needs a non-empty pattern")
        object.__setattr__(self, "account", join_name(split_name(self.account)))
        if self.kind == "regex":
            try:
                object.__setattr__(self, "_regex", re.compile(self.pattern, re.IGNORECASE))
            except re.error as error:
                raise ValueError(f"invalid regular expression {self.pattern!r}: {error}") from None

    def _values(self, entry: Entry) -> list[str]:
        if self.field == "description":
            return [entry.description]
        if self.field == "payee":
            return [entry.payee] if entry.payee else []
        return [p.memo for p in entry.postings if p.memo]

    def matches(self, entry: Entry) -> bool:
        """Whether this rule applies to ``entry``."""
        for value in self._values(entry):
            if self.kind == "contains" and self.pattern.casefold() in value.casefold():
                return True
            if self.kind == "exact" and self.pattern.casefold() == value.strip().casefold():
                return True
            if self.kind == "regex" and self._regex is not None and self._regex.search(value):
                return True
        return False


@dataclass
class Categorizer:
    """Applies rules, in order, to the fallback postings of entries."""

    rules: list[Rule]
    fallback: str = DEFAULT_FALLBACK

    def match(self, entry: Entry) -> Rule | None:
        """The first rule that matches ``entry``, or ``None``."""
        for rule in self.rules:
            if rule.matches(entry):
                return rule
        return None

    def categorize(self, entry: Entry) -> Entry:
        """A copy of ``entry`` whose fallback postings are moved to the matching rule's account.

        Entries without a fallback posting, or that no rule matches, are returned unchanged.
        """
        if not any(p.account == self.fallback for p in entry.postings):
            return entry
        rule = self.match(entry)
        if rule is None:
            return entry
        postings = [
            Posting(rule.account, p.amount, p.memo) if p.account == self.fallback else p
            for p in entry.postings
        ]
        return entry.with_postings(postings)

    def categorize_all(self, entries: Iterable[Entry]) -> list[Entry]:
        return [self.categorize(entry) for entry in entries]


_RULE_LINE = re.compile(r"^(?P<spec>.+?)\s*=>\s*(?P<account>\S.*?)\s*$")


def parse_rule(line: str) -> Rule:
    """Parses ``kind:[field:]pattern => Account`` (``kind`` defaults to ``contains``)."""
    match = _RULE_LINE.match(line.strip())
    if match is None:
        raise ValueError("expected 'pattern => Account'")
    spec, account = match.group("spec"), match.group("account")
    kind = "contains"
    head, sep, rest = spec.partition(":")
    if sep and head in MATCH_KINDS:
        kind, spec = head, rest
    target = "description"
    head, sep, rest = spec.partition(":")
    if sep and head in FIELDS:
        target, spec = head, rest
    return Rule(spec.strip(), account, kind, target)


def load_rules(text: str, source: str | None = None) -> list[Rule]:
    """Reads one rule per line; blank lines and ``#`` comments are skipped."""
    rules: list[Rule] = []
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        try:
            rules.append(parse_rule(stripped))
        except ValueError as error:
            raise ParseError(str(error), number, source) from None
    return rules
