"""What both jobs (``build``: steps 1-5; ``entities``: step 1) share around their pipeline: the
no-op rerun check, the run on any Beam runner with one line for a failure, progress of a remote
job, and the manifest's records of the inputs and the config.

A job's life (the output directory's part, what a run owns there: wikisilver.ownership)::

    output = prepare_output(out, config.overwrite, changed, CORPUS)
    with staged(out, CORPUS.dirs) as staging:
        run_pipeline(PipelineOptions(list(config.beam_args)), construct, config.progress_interval)
        place(output, staging, CORPUS.dirs)
    commit(output, manifest)     # manifest.json last: only a finished output has one
"""

from __future__ import annotations

import json
import logging
import re
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import asdict

import apache_beam as beam
from apache_beam.options.pipeline_options import PipelineOptions

from wikisilver import dump as dumplib
from wikisilver import paths
from wikisilver.config import BuildConfig
from wikisilver.engines import normalize_runner
from wikisilver.errors import PipelineFailed, WikisilverError
from wikisilver.fingerprint import digest_of, digests, fingerprints
from wikisilver.pipelines.common import NAMESPACE

log = logging.getLogger(__name__)

def class_table(ontology_path: str | None):
    """The class hierarchy and its resolved class -> tag table (small: they travel with the code)."""
    from wikisilver import ontology as onto

    ontology = onto.load_ontology(ontology_path) if ontology_path else onto.load_builtin_ontology()
    return ontology, onto.resolve_classes(ontology)


def sha256_of(path: str) -> str:
    """The SHA-256 of a file, as hex."""
    return digest_of(path, "sha256").removeprefix("sha256:")


def input_record(path: str, sha256: str = "") -> dict:
    """Path, size and SHA-256 of an input file (``sha256``: already known, so not read again)."""
    return {"path": paths.absolute(path), "bytes": paths.size(path), "sha256": sha256 or sha256_of(path)}


def dump_record(path: str, sha256: str = "") -> dict:
    """:func:`input_record` of a dump, with what its ``<siteinfo>`` and its file name say."""
    record = input_record(path, sha256)
    try:
        site = dumplib.read_siteinfo(path)
        record.update(dbname=site.dbname, language=dumplib.dump_language(site), generator=site.generator)
    except Exception as error:  # the manifest reports what it could not read
        record["siteinfo_error"] = str(error)
    record["dump_date"] = dumplib.wiki_date_from_name(path)
    return record


# Counters logged while a remote job runs; a name also sums its parts ("pages_rejected.parse_error").
FOLLOWED_COUNTERS = ("pages_read", "articles_cleaned", "sentences_kept", "sentences_written", "pages_rejected")


def followed_totals(found: Iterable) -> dict[str, int]:
    """The followed counters' totals from a metrics query (a counter may be reported per step)."""
    totals: dict[str, int] = {}
    for result in found:
        name = result.key.metric.name
        for followed in FOLLOWED_COUNTERS:
            if name == followed or name.startswith(f"{followed}."):
                totals[followed] = totals.get(followed, 0) + int(result.committed or result.attempted or 0)
    return totals


def log_job_progress(result, previous: Mapping[str, int], since: float) -> tuple[dict[str, int], float]:
    """One look at a running job's counters: log them with their rates since the last look."""
    from apache_beam.metrics.metric import MetricsFilter

    totals = followed_totals(result.metrics().query(MetricsFilter().with_namespace(NAMESPACE))["counters"])
    now = time.monotonic()
    parts = []
    for name in FOLLOWED_COUNTERS:
        if name in totals:
            rate = (totals[name] - previous.get(name, 0)) / max(now - since, 1e-9)
            parts.append(f"{name} {totals[name]:,} ({rate:.1f}/s)")
    if parts:
        log.info("progress: %s", ", ".join(parts))
    return totals, now


class JobFollower(threading.Thread):
    """Logs a remote job's counters every ``interval`` seconds until stopped (Dataflow, Flink, Spark
    through the job service). It only reads ``result.metrics()``: waiting for the job stays with the
    caller's single ``wait_until_finish()``, so the runner's own streams are never read twice."""

    def __init__(self, result, interval: float) -> None:
        super().__init__(name="wikisilver-progress", daemon=True)
        self.result = result
        self.interval = interval
        self.stopped = threading.Event()

    def run(self) -> None:
        previous: dict[str, int] = {}
        since = time.monotonic()
        while not self.stopped.wait(self.interval):
            try:
                previous, since = log_job_progress(self.result, previous, since)
            except Exception as error:  # noqa: BLE001 - progress is best effort, never fails a run
                log.debug("cannot read the job's counters: %s", error)

    def stop(self) -> None:
        self.stopped.set()
        self.join(timeout=10)


def run_pipeline(
    options: PipelineOptions, construct: Callable[[beam.Pipeline], None], progress_interval: float = 30.0
) -> None:
    """Construct and run a pipeline; a failure becomes one line naming the cause.

    Runners wrap a worker's exception in their own (with its traceback as text); the message of the
    innermost error is what the user needs, so that is what is raised. Ctrl-C raises
    KeyboardInterrupt (:func:`interruptible`).
    """
    options = local_runner_without_downloads(options)
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


def config_record(config: BuildConfig) -> dict:
    """The config as manifest.json records it (tuples as lists)."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in asdict(config).items()}


FILE_INPUTS = ("dumps", "multistream_index")  # the job's own; the entity sources' are declared (entities/sources.py)


def input_fingerprints(config: BuildConfig, known: Mapping[str, Mapping] | None = None) -> dict[str, list[dict]]:
    """The fingerprints (wikisilver.fingerprint) of every input file of a config, by option: the
    dumps and their indexes, the files of every declared entity source (a directory's files), the
    second pass's model; ``known``: those a finished corpus recorded, reused for files whose stat
    is unchanged."""
    from wikisilver.entities import sources

    prints = {key: fingerprints(getattr(config, key), known, dump=key == "dumps") for key in FILE_INPUTS}
    for source in sources.SOURCES:
        if source.fingerprinted:
            prints[source.option] = fingerprints(source.files(config), known)
    if config.second_pass:  # a build without it records what it always did
        from wikisilver.ner.seam import model_files

        prints["second_pass"] = fingerprints(model_files(config.second_pass), known)
    return prints


def comparable_config(config: BuildConfig, prints: Mapping[str, list[dict]]) -> dict:
    """What makes two builds the same build: the config without what does not change the output,
    each input file option as the set of its files' content digests (``prints``:
    :func:`input_fingerprints`)."""
    data = asdict(config)
    for volatile in ("overwrite", "beam_args", "strict", "progress_interval", "max_reject_share"):
        data.pop(volatile, None)
    if not config.second_pass:  # as a build of a version without the second pass recorded it
        data.pop("second_pass", None)
        data.pop("second_pass_threshold", None)
    for key, records in prints.items():
        data[key] = digests(records)
    data["disabled_rules"] = sorted(data["disabled_rules"])  # a set: the order given does not matter
    data["out"] = paths.absolute(config.out)
    return json.loads(json.dumps(data))


def recorded_fingerprints(out: str) -> dict[str, dict]:
    """The input fingerprints the finished corpus in ``out`` recorded, by absolute path ({} if none)."""
    try:
        manifest = json.loads(paths.read_text(paths.join(out, "manifest.json")))
        return {r["path"]: r for records in manifest.get("fingerprints", {}).values() for r in records}
    except (OSError, ValueError, AttributeError, TypeError, KeyError):
        return {}


def finished_same_build(out: str, config: BuildConfig, prints: Mapping[str, list[dict]]) -> tuple[dict | None, list[str]]:
    """The stats of a finished corpus in ``out`` built from the same inputs (by content) and
    options, if any; else None and the options (or inputs) that differ from its manifest's.
    manifest.json is the commit marker: without it nothing in ``out`` counts as finished."""
    manifest_path, stats_path = paths.join(out, "manifest.json"), paths.join(out, "stats.json")
    if not (paths.exists(manifest_path) and paths.exists(stats_path)):
        return None, []
    try:
        recorded = json.loads(paths.read_text(manifest_path)).get("comparable") or {}
        wanted = comparable_config(config, prints)
        changed = sorted(key for key in set(recorded) | set(wanted) if recorded.get(key) != wanted.get(key))
        return (None, changed) if changed else (json.loads(paths.read_text(stats_path)), [])
    except (OSError, ValueError, AttributeError):
        return None, []
