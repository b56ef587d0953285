"""§6 of the method: prove a corpus by training a NER tagger on it and scoring it on gold data.

``features`` (what the CRF sees of a token), ``crf`` (training and tagging), ``scores`` (conlleval's
exact-match P/R/F1).
"""
