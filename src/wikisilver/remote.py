"""Before any work: can a remote path (``s3://``, ``gs://``, ``hdfs://``, any other scheme an
installed Beam file system registers) be used at all? One bounded probe per path, one line when not.

Beam's file systems retry a failing call with exponential backoff, and boto retries under them:
a build given ``s3://…`` without credentials used to spend minutes in retries and dozens of
traceback lines before saying "Unable to locate credentials". :func:`check_remote` asks the store
once, with short timeouts and no retries, in a thread with a deadline
(:data:`PROBE_DEADLINE_S`), and turns the answer into an :class:`~wikisilver.errors.InputError`
naming the cause: missing credentials, an endpoint that does not answer, a missing bucket or
object, a file system whose client is not installed, or a scheme no file system reads
(``https://``: download the file first). Once a path passes, Beam's own calls on it are the usual
fast ones.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from wikisilver.errors import InputError

PROBE_DEADLINE_S = 10.0  # the whole probe of one path, whatever the store or the network does
CONNECT_TIMEOUT_S = 4.0
READ_TIMEOUT_S = 6.0

# Schemes that name no file system but a download: said as such, with what to do instead.
_DOWNLOADS = frozenset({"http", "https", "ftp", "ftps", "sftp", "scp", "rsync"})
# What each file system's scheme needs installed, for the line that says it is missing.
_CLIENTS = {
    "s3": "boto3: pip install 'wikisilver[aws]'",
    "gs": "Google Cloud Storage's client: pip install 'wikisilver[gcp]'",
    "hdfs": "the hdfs package: pip install hdfs",
}
_KNOWN = "local paths, s3://, gs://, hdfs://"


def check_remote(path: str, *, output: bool = False) -> None:
    """Raise InputError, in one line and within about :data:`PROBE_DEADLINE_S` seconds, unless
    ``path`` is local or a remote path the store answers for: an input that exists (a file, or a
    prefix with objects under it: a "directory"), or, with ``output``, a place whose bucket and
    credentials work (nothing is written to find out)."""
    from wikisilver import paths

    scheme = paths.scheme(path)
    if scheme is None:
        return
    if scheme in _DOWNLOADS:
        raise InputError(path, f"{scheme}:// {'outputs' if output else 'inputs'} are not supported: "
                               "download the file first (`wikisilver download` fetches dumps), then give its "
                               "local path or copy it to an object store (s3://, gs://)")
    _check_file_system(path, scheme)
    probe = _probe_s3 if scheme == "s3" else _probe_beam
    failure = _within_deadline(lambda: probe(path, output), PROBE_DEADLINE_S)
    if failure is _TIMED_OUT:
        raise InputError(path, f"no answer from {scheme}:// within {PROBE_DEADLINE_S:.0f} s: is the network "
                               "or the endpoint down, or are credentials being looked for? (-v shows the client's log)")
    if failure:
        raise InputError(path, failure)


def _check_file_system(path: str, scheme: str) -> None:
    """A scheme some installed Beam file system reads, or the line that says what to install."""
    from apache_beam.io.filesystems import FileSystems

    try:
        FileSystems.get_filesystem(path)
    except Exception:  # noqa: BLE001 - ValueError for an unknown scheme, BeamIOError for a missing client
        if scheme in _CLIENTS:
            raise InputError(path, f"{scheme}:// paths need {_CLIENTS[scheme]}") from None
        raise InputError(path, f"{scheme}:// is no file system wikisilver can use ({_KNOWN}, or any "
                               "other an installed Apache Beam file system registers)") from None


_TIMED_OUT = object()


def _within_deadline(probe: Callable[[], str | None], deadline: float):
    """What ``probe`` returns (a reason, or None), or :data:`_TIMED_OUT`; it runs in a daemon thread
    so that a client stuck in the network cannot hold the command (the thread ends with the process).
    Beam's retry lines (a warning and a traceback each) are held back while it runs."""
    result: list = []

    def run() -> None:
        try:
            result.append(probe())
        except Exception as error:  # noqa: BLE001 - any failure of any client is the reason
            result.append(_short(error))

    retry_log = logging.getLogger("apache_beam.utils.retry")
    level = retry_log.level
    if not logging.getLogger().isEnabledFor(logging.DEBUG):
        retry_log.setLevel(logging.ERROR)
    try:
        thread = threading.Thread(target=run, name="wikisilver-remote-probe", daemon=True)
        thread.start()
        thread.join(deadline)
    finally:
        retry_log.setLevel(level)
    return result[0] if result else _TIMED_OUT


def _short(error: BaseException) -> str:
    """An exception as the last line of its message, prefixed with its kind."""
    lines = [line.strip() for line in str(error).strip().splitlines() if line.strip()]
    return f"{type(error).__name__}: {lines[-1] if lines else ''}"[:300]


# --------------------------------------------------------------------------- S3, through boto3


def _s3_client():
    """A boto3 S3 client with the settings Beam's S3 file system uses (its S3Options, else boto3's
    environment), but short timeouts and a single attempt: a probe, not a transfer."""
    import boto3
    from apache_beam.options.pipeline_options import S3Options
    from botocore.config import Config

    from wikisilver import paths

    options = paths._filesystems()._pipeline_options.view_as(S3Options)
    config = Config(connect_timeout=CONNECT_TIMEOUT_S, read_timeout=READ_TIMEOUT_S,
                    retries={"max_attempts": 1, "mode": "standard"})
    return boto3.session.Session().client(
        "s3", region_name=options.s3_region_name, api_version=options.s3_api_version,
        use_ssl=not options.s3_disable_ssl, verify=options.s3_verify, endpoint_url=options.s3_endpoint_url,
        aws_access_key_id=options.s3_access_key_id, aws_secret_access_key=options.s3_secret_access_key,
        aws_session_token=options.s3_session_token, config=config,
    )


def _probe_s3(path: str, output: bool) -> str | None:
    """Why an s3:// path cannot be used (None: it can)."""
    from botocore.exceptions import ClientError, HTTPClientError, NoCredentialsError, PartialCredentialsError
    from botocore.exceptions import ConnectionError as BotoConnectionError

    bucket, _, key = path[len("s3://"):].partition("/")
    if not bucket:
        return "no bucket in the path (s3://BUCKET/KEY)"
    client = None
    try:
        client = _s3_client()
        if not output and key and not key.endswith("/"):
            try:
                client.head_object(Bucket=bucket, Key=key)
                return None
            except ClientError as error:
                if _status(error) != 404:
                    raise
        prefix = key if output or not key else key.rstrip("/") + "/"
        listed = client.list_objects_v2(Bucket=bucket, Prefix=prefix, MaxKeys=1)
        if output or listed.get("KeyCount", 0):
            return None
        return "no such file or directory"
    except (NoCredentialsError, PartialCredentialsError):
        return ("no S3 credentials: give Beam's --s3_access_key_id and --s3_secret_access_key, or set "
                "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or AWS_PROFILE, ~/.aws/credentials)")
    except (BotoConnectionError, HTTPClientError) as error:  # no connection, a timeout, a connection closed mid-answer
        endpoint = client.meta.endpoint_url if client is not None else "the S3 endpoint"
        return f"cannot reach the S3 endpoint {endpoint} ({type(error).__name__}): check --s3_endpoint_url or AWS_ENDPOINT_URL and the network"
    except ClientError as error:
        code = error.response.get("Error", {}).get("Code") or str(_status(error))
        if code == "NoSuchBucket":
            return f"no such bucket {bucket!r}"
        if code in ("AccessDenied", "InvalidAccessKeyId", "SignatureDoesNotMatch", "403", "ExpiredToken"):
            return f"the store refuses these credentials ({code}): check the key, the secret and the bucket's policy"
        return f"the store answered {code}: {error.response.get('Error', {}).get('Message', '')}".rstrip(": ")


def _status(error) -> int | None:
    return error.response.get("ResponseMetadata", {}).get("HTTPStatusCode")


# --------------------------------------------------------------------------- any other Beam file system


def _probe_beam(path: str, output: bool) -> str | None:
    """Why a path of another Beam file system cannot be used: asked through Beam's FileSystems
    (its retries run in the probe's thread, cut off by the deadline)."""
    from wikisilver import paths

    if output:
        paths.glob(paths.join(path, "*"))  # a listing: credentials, endpoint and bucket answer
        return None
    if paths.exists(path) or paths.isdir(path):
        return None
    return "no such file or directory"
