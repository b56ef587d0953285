"""Steps 3 and 4 of the method, bounded: what one sentence and one alias form may hold.

Labelling a sentence costs memory and time in proportion to its tokens (one state, one POS tag,
one lemma per token), and matching aliases costs the length of the longest form per token. A page
of broken markup can make one "sentence" of a whole megabyte (an unclosed ``<math>``, a run of
``'''''``), so each is bounded here. A sentence over a bound is a fragment, dropped before any
rule or the tagger sees it (one over the characters before it is even tokenized), and counted
under its reason in ``stats.json`` (``sentences_dropped_fragment.long_sentence``, ``.long_token``).

The bounds are generous: no sentence of the real dumps in ``../shared/data/wikidumps`` comes near
them (31 files, 4,869 articles in 24 languages: at most 2,221 characters, 702 tokens, and a token
of 219 characters; docs/labelling.md). The page's own time budget (``--page-timeout``) covers
labelling too, checked between sentences and while the alias index is built.
"""

from __future__ import annotations

# A sentence of more characters is not prose (checked before it is tokenized).
MAX_SENTENCE_CHARS = 20_000
# A sentence of more tokens is not prose.
MAX_SENTENCE_TOKENS = 1_000
# A token of more characters is not a word (a run of markup, a base64 blob): its sentence is dropped.
MAX_TOKEN_CHARS = 1_000
# An alias form of more tokens is not indexed: the alias match at a token walks at most this far.
# A title is at most 255 bytes (MediaWiki), so no name of a real entity comes near it.
MAX_ALIAS_TOKENS = 64
