"""Reading and writing ledgers: the text format, CSV import and exports."""
