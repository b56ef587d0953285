"""A pipeline run on any Beam runner, and its failure as one line (both jobs: ``build``, steps 1-5;
``entities``, step 1).

A job's life (the output directory's part, what a run owns there: wikisilver.ownership; the no-op
rerun before it: wikisilver.rerun; what manifest.json records: wikisilver.manifest)::

    output = prepare_output(out, config.overwrite, changed, CORPUS)
    with staged(out, CORPUS.dirs) as staging:
        run_pipeline(PipelineOptions(list(config.beam_args)), construct, config.progress_interval)
        place(output, staging, CORPUS.dirs)
    commit(output, manifest)     # manifest.json last: only a finished output has one

Here: the DirectRunner without downloads, glibc told to hand freed memory back
(wikisilver.memory), Ctrl-C as a plain KeyboardInterrupt, Beam's worker tracebacks kept out of the
user's terminal, and the innermost error's message as the one line.
"""

from __future__ import annotations

import logging
import re
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions

from wikisilver.engines import normalize_runner
from wikisilver.errors import PipelineFailed, WikisilverError
from wikisilver.garbage import collect_garbage_less_often
from wikisilver.memory import hand_back_freed_memory
from wikisilver.pipelines.follow import JobFollower

log = logging.getLogger(__name__)


def run_pipeline(
    options: PipelineOptions, construct: Callable[[beam.Pipeline], None], progress_interval: float = 30.0
) -> None:
    """Construct and run a pipeline; a failure becomes one line naming the cause.

    Runners wrap a worker's exception in their own (with its traceback as text); the message of the
    innermost error is what the user needs, so that is what is raised. Ctrl-C raises
    KeyboardInterrupt (:func:`interruptible`).
    """
    options = local_runner_without_downloads(options)
    hand_back_freed_memory()  # the local runner frees each stage's input: let the process shrink
    collect_garbage_less_often()  # a local run's worker is this process
    with interruptible() as interrupted:
        try:
            with beam_errors_hidden():
                _run(options, construct, progress_interval)
        except WikisilverError:
            raise
        except BaseException as error:  # noqa: BLE001 - every runner failure ends here, reported in one line
            if interrupted.is_set():
                raise KeyboardInterrupt from None
            if not isinstance(error, Exception):
                raise
            log.debug("pipeline failed", exc_info=True)
            raise PipelineFailed(f"the pipeline failed: {_root_cause(error)}") from None


@contextmanager
def _beam_records_dropped(when: Callable[[logging.LogRecord], bool]) -> Iterator[None]:
    """While inside: Beam's log records for which ``when`` holds are dropped by every root handler."""
    def keep(record: logging.LogRecord) -> bool:
        return not (record.name.startswith("apache_beam") and when(record))

    handlers = list(logging.getLogger().handlers)
    for handler in handlers:
        handler.addFilter(keep)
    try:
        yield
    finally:
        for handler in handlers:
            handler.removeFilter(keep)


@contextmanager
def beam_errors_hidden() -> Iterator[None]:
    """While a job runs: Beam's ERROR records hidden, unless debug logging is on. Beam logs a failing
    step as an ERROR with the worker's traceback before it raises; the failure is reported once,
    as one line."""
    if logging.getLogger().isEnabledFor(logging.DEBUG):
        yield
        return
    with _beam_records_dropped(lambda record: record.levelno >= logging.ERROR):
        yield


def _run(options: PipelineOptions, construct: Callable[[beam.Pipeline], None], progress_interval: float) -> None:
    from apache_beam.runners.runner import PipelineState

    pipeline = beam.Pipeline(options=options)
    construct(pipeline)
    result = pipeline.run()  # the local runner returns finished; a remote one, running
    follower = None
    # (not is_terminal(): Beam's job service reports a job STOPPED before it starts it)
    finished = (PipelineState.DONE, PipelineState.FAILED, PipelineState.CANCELLED, PipelineState.DRAINED)
    if progress_interval > 0 and result.state not in finished:
        follower = JobFollower(result, progress_interval)
        follower.start()
    try:
        state = result.wait_until_finish()
    finally:
        if follower is not None:
            follower.stop()
    if state is not None and state not in (PipelineState.DONE, PipelineState.UNKNOWN):
        raise PipelineFailed(f"the pipeline ended in state {state}")


@contextmanager
def interruptible() -> Iterator[threading.Event]:
    """Ctrl-C during a job stops it with a plain KeyboardInterrupt, set in the event it yields.

    Beam catches the interrupt wherever it lands, logs it as an ERROR with that worker's traceback
    and raises its own error instead; here Beam's lines are dropped once Ctrl-C was pressed, and the
    caller sees KeyboardInterrupt (the CLI: one line, exit 130; the staging directory is removed
    on the way out).
    """
    interrupted = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield interrupted
        return

    def on_sigint(signum, frame):
        interrupted.set()
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        with _beam_records_dropped(lambda record: interrupted.is_set()):
            yield interrupted
    finally:
        signal.signal(signal.SIGINT, previous)


def local_runner_without_downloads(options: PipelineOptions) -> PipelineOptions:
    """Run the DirectRunner as its FnApiRunner engine.

    Beam's DirectRunner first tries the Prism runner, which downloads a binary from GitHub at run
    time (and, offline, fails and falls back to the FnApiRunner after a delay). wikisilver never
    downloads at run time, so the default and ``--runner DirectRunner`` go straight to the
    FnApiRunner, which honours ``--direct_running_mode`` and ``--direct_num_workers``. Every other
    runner (Dataflow, Flink, Spark, Portable, Prism if asked for by name) is used as given.
    """
    from apache_beam.options.pipeline_options import StandardOptions

    standard = options.view_as(StandardOptions)
    if normalize_runner(standard.runner) in ("direct", "switchingdirect"):
        standard.runner = "FnApiRunner"
    return options


def _root_cause(error: BaseException) -> str:
    text = str(error).strip()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    for line in reversed(lines):
        if "Error:" in line or "Exception:" in line:
            # One of ours carries its own words (file, position); its class path adds nothing.
            return re.sub(r"^wikisilver\.[\w.]+(Error|Failed|Locked): ", "", line)[:500]
    while error.__cause__ is not None or error.__context__ is not None:
        error = error.__cause__ or error.__context__
    return f"{type(error).__name__}: {str(error).strip().splitlines()[-1] if str(error).strip() else ''}"[:500]
