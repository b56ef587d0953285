"""wikisilver: silver-standard NER corpora from Wikipedia dumps.

The package holds the Beam-free domain logic of the method (Nemeskey & Simon,
after Nothman et al.); the Beam jobs that compose it live in
``wikisilver.pipelines`` (the top-level ``pipelines/`` folder of the repository).
"""

__version__ = "0.1.0"

# The Python API (wikisilver.api), imported on first use so `import wikisilver` stays cheap
# (no Beam, no pyarrow until a function is asked for).
__all__ = [
    "HF_FEATURES", "BuildProblems", "Corpus", "__version__", "build", "evaluate", "hf_features", "load_corpus", "train",
]
_API_NAMES = frozenset(__all__) - {"__version__"}


def __getattr__(name: str) -> object:
    if name in _API_NAMES:
        from wikisilver import api

        return getattr(api, name)
    raise AttributeError(f"module 'wikisilver' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *_API_NAMES])
