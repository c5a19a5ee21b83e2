"""Rules applied to entries: categorization, validation and recurring templates."""
