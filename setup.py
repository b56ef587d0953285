"""The compiled parts of wikisilver, optional: the English tagger's greedy loop in C
(src/wikisilver/text/_greedy.c), the treebank tokenizer's scan of plain words and marks and two
scans of an article's text (src/wikisilver/text/_scan.c), and the TSV's token lines
(src/wikisilver/corpus/_tsv.c). Where no C compiler is found the install goes on without them:
the tagger runs its numpy twin, the tokenizer and the scans their expressions, the TSV its Python
join, with the same results. Everything else is in pyproject.toml."""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension("wikisilver.text._greedy", ["src/wikisilver/text/_greedy.c"], optional=True),
    Extension("wikisilver.text._scan", ["src/wikisilver/text/_scan.c"], optional=True),
    Extension("wikisilver.corpus._tsv", ["src/wikisilver/corpus/_tsv.c"], optional=True),
])
