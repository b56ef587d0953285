"""Speed, in one place: Python's cyclic garbage collector runs less often in a job's processes.

CPython frees an object as soon as nothing refers to it; the cyclic collector is only for objects
that refer to each other. It runs whenever 700 more container objects (lists, tuples, dicts, class
instances) have been made than freed, and every tenth run also looks at the objects that survived
the last ten, every hundredth at all of them. Labelling an article makes tens of thousands of small
containers and frees nearly all of them with the article; a local run also holds a stage's whole
input as objects, which every full collection walks again. A one-worker build of the English
extract repeated 8 times spent some 7 % of its CPU in the collector (4.7 of 66 CPU s).

:data:`THRESHOLDS` make the first collection wait for 50,000 net new containers and the second for
20 of the first; the third keeps its ratio. What refers only to itself is still collected, later:
at most 50,000 young objects wait for it. The measured gain (an interleaved A/B of the whole
build) and the memory it costs are in docs/performance.md, "Garbage collection". Output cannot
change: the collector decides when memory is freed, never what a job computes.

Called where a process starts its work: the launcher (:func:`pipelines.run.run_pipeline`, whose
process is the one worker of a local run) and the set-up of the cleaning and labelling steps
(the processes of a distributed runner's workers). A user's own setting (a threshold changed, or
the collector disabled) is kept.
"""

from __future__ import annotations

import gc

DEFAULT = (700, 10, 10)  # CPython's thresholds
THRESHOLDS = (50_000, 20, 10)


def collect_garbage_less_often() -> bool:
    """Apply :data:`THRESHOLDS` to this process unless the user changed the collector's; True if
    they are in force."""
    current = gc.get_threshold()
    if current == THRESHOLDS:
        return True
    if current != DEFAULT or not gc.isenabled():  # the user's choice
        return False
    gc.set_threshold(*THRESHOLDS)
    return True
