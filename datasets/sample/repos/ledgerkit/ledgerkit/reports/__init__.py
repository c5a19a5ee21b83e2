"""Financial reports computed from a :class:`~ledgerkit.core.journal.Journal`."""
