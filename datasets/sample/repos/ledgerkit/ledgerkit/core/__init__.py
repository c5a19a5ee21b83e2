"""Core data model: money, accounts, journal entries and errors."""
