from datetime import date

import pytest

from ledgerkit.core.errors import ParseError
from ledgerkit.core.journal import Entry, Posting
from ledgerkit.core.money import Money
from ledgerkit.rules.categorize import Categorizer, Rule, load_rules, parse_rule


def imported(description, amount="-10", payee=None):
    money = Money(amount, "USD")
    return Entry(
        date(2024, 3, 1),
        description,
        [Posting("Assets:Bank", money), Posting("Expenses:Uncategorized", -money)],
        payee=payee,
    )


def test_contains_is_case_insensitive():
    assert Rule("starbucks", "Expenses:Coffee").matches(imported("STARBUCKS #123"))


def test_regex_and_exact_rules():
    assert Rule(r"^amzn\s+mktp", "Expenses:Shopping", kind="regex").matches(imported("AMZN Mktp US"))
    assert Rule("acme corp", "Income:Salary", kind="exact", field="payee").matches(
        imported("Salary", payee="ACME Corp ")
    )
    assert not Rule("acme", "Income:Salary", kind="exact", field="payee").matches(imported("x"))


def test_invalid_rules():
    with pytest.raises(ValueError, match="unknown match kind"):
        Rule("x", "Expenses:X", kind="glob")
    with pytest.raises(ValueError, match="invalid regular expression"):
        Rule("(", "Expenses:X", kind="regex")


def test_first_matching_rule_wins():
    categorizer = Categorizer([Rule("coffee", "Expenses:Coffee"), Rule("coffee beans", "Expenses:Groceries")])
    entry = categorizer.categorize(imported("Coffee beans 1kg"))
    assert entry.postings[1].account == "Expenses:Coffee"
    assert entry.postings[1].amount == Money(10, "USD")


def test_unmatched_and_already_categorized_are_unchanged():
    categorizer = Categorizer([Rule("rent", "Expenses:Rent")])
    plain = imported("Groceries")
    assert categorizer.categorize(plain) is plain
    done = plain.with_postings([Posting("Assets:Bank", Money(-1, "USD")), Posting("Expenses:Food", Money(1, "USD"))])
    assert Categorizer([Rule("groceries", "Expenses:X")]).categorize(done) is done


def test_parse_rule_syntax():
    rule = parse_rule("regex:payee:^ACME => Income:Salary")
    assert (rule.kind, rule.field, rule.pattern, rule.account) == ("regex", "payee", "^ACME", "Income:Salary")
    assert parse_rule("Shell Oil => Expenses:Car:Fuel").kind == "contains"


def test_load_rules_reports_line_numbers():
    text = "# rules\ncontains:STARBUCKS => Expenses:Coffee\n\nno arrow here\n"
    with pytest.raises(ParseError, match="line 4: expected 'pattern => Account'"):
        load_rules(text)
    assert len(load_rules(text.rsplit("no arrow", 1)[0])) == 1
