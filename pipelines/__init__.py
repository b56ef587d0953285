"""The Beam jobs of wikisilver: composite transforms over the domain logic in ``wikisilver``."""
