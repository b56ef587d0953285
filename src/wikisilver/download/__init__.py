"""Getting the inputs of steps 1 and 2: a Wikimedia dump set and the DBpedia files, verified.

``http`` (requests and retries), ``files`` (one file: resume, verify, rename), ``dumps`` (a dump run
from its dumpstatus.json), ``dbpedia`` (the ontology and instance types).
"""
