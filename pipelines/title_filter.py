"""The Bloom filter of the requested titles as a Beam combiner: the one side input of the build,
fixed in size, that lets a types reader drop the lines no article needs before the shuffle
(the filter itself, pure Python: wikisilver.entities.bloom).
"""

from __future__ import annotations

import apache_beam as beam

from wikisilver.entities.bloom import BloomFilter, filter_size, title_hash


class TitleFilterFn(beam.CombineFn):
    """Titles -> (bits, hashes, bytes) of a Bloom filter holding them (``wikisilver.entities.bloom``).

    A bundle's accumulator is a set of title hashes until it would outgrow the bit array, then
    the bit array itself, so a small bundle ships a few kB, never the whole filter.
    """

    def __init__(self, capacity: int, error_rate: float = 0.01) -> None:
        self.bits, self.hashes = filter_size(capacity, error_rate)
        self.switch = self.bits // 64  # a set of 64-bit hashes as large as the bit array

    def _as_filter(self, accumulator) -> BloomFilter:
        if isinstance(accumulator, BloomFilter):
            return accumulator
        bloom = BloomFilter(self.bits, self.hashes)
        for hashed in accumulator:
            bloom.add_hash(hashed)
        return bloom

    def create_accumulator(self):
        return set()

    def add_input(self, accumulator, title: str):
        if isinstance(accumulator, BloomFilter):
            accumulator.add(title)
            return accumulator
        accumulator.add(title_hash(title))
        return self._as_filter(accumulator) if len(accumulator) > self.switch else accumulator

    def merge_accumulators(self, accumulators):
        hashes: set[int] = set()
        bloom = None
        for accumulator in accumulators:
            if isinstance(accumulator, BloomFilter):
                bloom = accumulator if bloom is None else bloom.union(accumulator)
            else:
                hashes |= accumulator
        if bloom is None:
            return hashes if len(hashes) <= self.switch else self._as_filter(hashes)
        for hashed in hashes:
            bloom.add_hash(hashed)
        return bloom

    def extract_output(self, accumulator) -> tuple[int, int, bytes]:
        bloom = self._as_filter(accumulator)
        return bloom.bits, bloom.hashes, bytes(bloom.array)
