"""The options of a run, resolved and checked in one place before any work (steps 1-5 and the
entity table alike), for the command line, a ``--config`` file and the Python API.

* :mod:`.options`: the config records (:class:`BuildConfig`, :class:`EntitiesConfig`), the option
  names, the options given read into the config's types;
* :mod:`.resolve`: :func:`resolve_build` and :func:`resolve_entities`, the defaults filled in;
* :mod:`.checks`: every check of the inputs, each failing in one line;
* :mod:`.derived`: settings derived from a config where they are used (parts, indexes, languages).
"""

from wikisilver.config.options import BuildConfig, EntitiesConfig
from wikisilver.config.resolve import resolve_build, resolve_entities

__all__ = ["BuildConfig", "EntitiesConfig", "resolve_build", "resolve_entities"]
