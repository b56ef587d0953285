"""wikisilver: silver-standard NER corpora from Wikipedia dumps.

The package holds the Beam-free domain logic of the method (Nemeskey & Simon,
after Nothman et al.); the Beam jobs that compose it live in
``wikisilver.pipelines`` (the top-level ``pipelines/`` folder of the repository).
"""

__version__ = "0.1.0"
