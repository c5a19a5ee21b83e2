"""The ``ledgerkit`` command line interface."""
