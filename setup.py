"""The one compiled part of wikisilver, optional: the English tagger's greedy loop in C
(src/wikisilver/text/_greedy.c). Where no C compiler is found the install goes on without it
and the tagger runs its numpy twin, with the same tags. Everything else is in pyproject.toml."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("wikisilver.text._greedy", ["src/wikisilver/text/_greedy.c"], optional=True)])
