"""The compiled parts of wikisilver, optional: the English tagger's greedy loop in C
(src/wikisilver/text/_greedy.c) and the treebank tokenizer's scan of plain words and marks
(src/wikisilver/text/_scan.c). Where no C compiler is found the install goes on without them:
the tagger runs its numpy twin, the tokenizer its expression alone, with the same results.
Everything else is in pyproject.toml."""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension("wikisilver.text._greedy", ["src/wikisilver/text/_greedy.c"], optional=True),
    Extension("wikisilver.text._scan", ["src/wikisilver/text/_scan.c"], optional=True),
])
