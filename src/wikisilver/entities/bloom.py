"""A Bloom filter of titles: a bounded-size answer to "might this title be needed?".

The build types only the titles its articles link to, but a DBpedia types file knows millions of
titles a small dump never mentions. Sending every line of it through the typing join costs a
shuffle of the whole file. A Bloom filter of the requested titles, built by a combine and handed
to the types reader as a side input, drops most unrequested lines before the shuffle. It is
bounded by construction (its size is fixed up front from the expected number of titles, ~1.2 bytes
per title at a 1 % false-positive rate) and never wrong in the way that matters: a title that was
added always passes. A false positive only lets a line through to the join, which then finds
no request for it and drops it, so the corpus does not depend on the filter.

Pure Python, no Beam: the pipeline wraps it in a CombineFn (``pipelines/title_filter.py``).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable

MIN_CAPACITY = 10_000


def filter_size(capacity: int, error_rate: float = 0.01) -> tuple[int, int]:
    """(bits, hash functions) of the optimal filter for ``capacity`` items at ``error_rate``."""
    if not 0 < error_rate < 1:
        raise ValueError(f"error rate must be between 0 and 1, not {error_rate}")
    capacity = max(capacity, MIN_CAPACITY)
    bits = math.ceil(-capacity * math.log(error_rate) / math.log(2) ** 2)
    bits = (bits + 7) // 8 * 8
    hashes = max(1, round(bits / capacity * math.log(2)))
    return bits, hashes


def title_hash(title: str) -> int:
    """128-bit hash of a title; the same in every process and on every machine (not hash())."""
    return int.from_bytes(hashlib.blake2b(title.encode("utf-8"), digest_size=16).digest(), "little")


class BloomFilter:
    """A fixed-size bit array with ``hashes`` positions per item (double hashing)."""

    __slots__ = ("bits", "hashes", "array")

    def __init__(self, bits: int, hashes: int, array: bytes | bytearray | None = None) -> None:
        if bits <= 0 or bits % 8 or hashes <= 0:
            raise ValueError(f"a Bloom filter needs a positive multiple of 8 bits and hashes, not {bits}, {hashes}")
        self.bits = bits
        self.hashes = hashes
        self.array = bytearray(array) if array is not None else bytearray(bits // 8)
        if len(self.array) * 8 != bits:
            raise ValueError(f"array of {len(self.array)} bytes for a filter of {bits} bits")

    def _positions(self, hashed: int):
        low, high = hashed & 0xFFFFFFFFFFFFFFFF, (hashed >> 64) | 1
        for i in range(self.hashes):
            yield (low + i * high) % self.bits

    def add_hash(self, hashed: int) -> None:
        array = self.array
        for position in self._positions(hashed):
            array[position >> 3] |= 1 << (position & 7)

    def add(self, title: str) -> None:
        self.add_hash(title_hash(title))

    def update(self, titles: Iterable[str]) -> None:
        for title in titles:
            self.add(title)

    def __contains__(self, title: str) -> bool:
        array, bits = self.array, self.bits
        hashed = title_hash(title)
        low, high = hashed & 0xFFFFFFFFFFFFFFFF, (hashed >> 64) | 1  # as _positions, without a generator
        for i in range(self.hashes):
            position = (low + i * high) % bits
            if not array[position >> 3] & (1 << (position & 7)):
                return False
        return True

    def union(self, other: BloomFilter) -> BloomFilter:
        """A filter holding the items of both (bitwise or); both must have the same shape."""
        if (self.bits, self.hashes) != (other.bits, other.hashes):
            raise ValueError("only filters of the same size and number of hashes can be merged")
        merged = int.from_bytes(self.array, "little") | int.from_bytes(other.array, "little")
        return BloomFilter(self.bits, self.hashes, merged.to_bytes(self.bits // 8, "little"))
