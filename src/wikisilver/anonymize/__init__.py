"""After §6 of the method: what the corpora are for. ``wikisilver anonymize`` finds the names in text
with a model trained on a corpus (and the corpus's own entities), and replaces them by one of the
four methods of text anonymizers (Dias 2016): suppression, tagging, substitution, generalization.

:mod:`~wikisilver.anonymize.detect` finds them, :mod:`~wikisilver.anonymize.replace` replaces a
document's names consistently, :mod:`~wikisilver.anonymize.surrogates` holds the corpus's entity
table, :mod:`~wikisilver.anonymize.generalize` words a class, :mod:`~wikisilver.anonymize.inflect`
puts a case ending on the replacement, :mod:`~wikisilver.anonymize.documents` keeps documents and
plain-text lines together. No Beam here: the command runs on one machine.
"""
