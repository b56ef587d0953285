"""After step 5: ``wikisilver report``, one self-contained HTML page about a built corpus.

``profile`` (what is computed from the Parquet parts and ``rejects/``), ``plots`` (the figures),
``html`` (the page, and :func:`~wikisilver.report.html.write_report`).
"""
