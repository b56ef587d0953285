"""Step 5 of the method and what reads its output: the corpus.

``schema`` (TSV columns, Parquet schema), ``write`` (the part writers of the build), ``read`` (the one
reader of a built corpus: its Parquet and TSV parts, stats.json, manifest.json), ``export`` (the
corpus in the formats NER tools read), and the tools of §6 that read corpora: ``tags`` (tagged
sentences, IOB schemes), ``gold`` (other people's CoNLL-2003 and CoNLL-U files), ``inputs`` (any
corpus path, ours or gold, as tagged sentences), ``splits`` and ``gazetteers``.
"""
