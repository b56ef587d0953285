"""Tests of the one opener of input files (wikisilver.files): every compression, by magic bytes."""

from __future__ import annotations

import bz2
import gzip
import lzma

import pytest

from wikisilver.errors import InputError
from wikisilver.files import compression_of, open_binary, open_text

TEXT = "<mediawiki>\n  <page><title>Budapest</title></page>\n  <page><title>Győr</title></page>\n</mediawiki>\n"
RAW = TEXT.encode("utf-8")


@pytest.mark.parametrize(
    "name,pack,kind",
    [
        ("plain.xml", lambda b: b, "plain"),
        ("packed.xml.bz2", bz2.compress, "bz2"),
        ("packed.xml.xz", lzma.compress, "xz"),
        ("packed.xml.gz", gzip.compress, "gz"),
        ("multistream.xml.bz2", lambda b: bz2.compress(b[:30]) + bz2.compress(b[30:]), "bz2"),
        ("two-members.xml.gz", lambda b: gzip.compress(b[:30]) + gzip.compress(b[30:]), "gz"),
        # The magic bytes win over a wrong extension.
        ("renamed.xml", bz2.compress, "bz2"),
        ("renamed.bz2", lzma.compress, "xz"),
        ("renamed.gz", lambda b: b, "plain"),
    ],
)
def test_every_compression_reads_back_the_same_bytes(tmp_path, name, pack, kind):
    path = tmp_path / name
    path.write_bytes(pack(RAW))
    assert compression_of(path) == kind
    with open_binary(path) as stream:
        assert stream.read() == RAW
    with open_text(path) as lines:
        assert lines.read() == TEXT


def test_an_empty_file_reads_as_empty(tmp_path):
    path = tmp_path / "empty.xml.bz2"
    path.write_bytes(b"")
    with open_binary(path) as stream:
        assert stream.read() == b""
    with open_text(path) as lines:
        assert list(lines) == []


def test_a_missing_file_or_a_directory_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="no such file") as raised:
        open_binary(tmp_path / "nowhere.xml.bz2")
    assert raised.value.path == str(tmp_path / "nowhere.xml.bz2")
    with pytest.raises(InputError, match="is a directory"):
        open_text(tmp_path)


@pytest.mark.parametrize("pack", [bz2.compress, lzma.compress, gzip.compress])
def test_cut_short_compressed_data_is_an_input_error_naming_the_file(tmp_path, pack):
    packed = pack(RAW * 50)
    path = tmp_path / "cut.xml"
    path.write_bytes(packed[: len(packed) // 2])
    with pytest.raises(InputError, match="unreadable or truncated") as raised:
        with open_binary(path) as stream:
            stream.read()
    assert raised.value.path == str(path)


def test_text_is_decoded_with_the_encoding_asked_for(tmp_path):
    path = tmp_path / "latin1.txt.gz"
    path.write_bytes(gzip.compress("Győr\r\nPécs\n".encode("utf-8")))
    with open_text(path) as lines:
        assert list(lines) == ["Győr\n", "Pécs\n"]
    path.write_bytes(gzip.compress(b"P\xe9cs\n"))
    with open_text(path, encoding="latin-1") as lines:
        assert lines.read() == "Pécs\n"
    with pytest.raises(UnicodeDecodeError), open_text(path) as lines:
        lines.read()
