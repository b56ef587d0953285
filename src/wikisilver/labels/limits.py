"""Steps 3 and 4 of the method, bounded: what one sentence and one alias form may hold.

Labelling a sentence costs memory and time in proportion to its tokens (one state, one POS tag,
one lemma per token), and matching aliases costs the length of the longest form per token. A page
of broken markup can make one "sentence" of a whole megabyte (an unclosed ``<math>``, a run of
``'''''``), so each is bounded here; a sentence over a bound is a fragment, dropped before it is
tokenized or tagged and counted under its reason in ``stats.json``
(``sentences_dropped_fragment.long_sentence``, ``.long_token``).

The bounds are generous: no sentence of the real dumps in ``../shared/data/wikidumps`` (twelve
languages) comes near them (the longest: 3,232 characters, 685 tokens, its longest token 244
characters; docs/labelling.md), and no alias form of a real page is longer than a title can be.
The page's own time budget (``--page-timeout``) covers labelling too, checked between sentences.
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
