"""Lexical analysis: tokens, words and sentences."""

from textflow.lex.sentences import count_sentences, split_sentences
from textflow.lex.tokenizer import iter_tokens, tokenize, words
from textflow.lex.tokens import Token, TokenKind

__all__ = [
    "Token",
    "TokenKind",
    "count_sentences",
    "iter_tokens",
    "split_sentences",
    "tokenize",
    "words",
]
