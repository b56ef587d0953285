"""Hand-curated tables and language resources, as data files (see README.md in this folder)."""
