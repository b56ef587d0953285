"""The Bloom filter of requested titles: never drops an added title, few false positives, merges."""

from __future__ import annotations

import random

import pytest

from wikisilver.entities.bloom import BloomFilter, filter_size, title_hash

TITLES = [f"Title {i} (disambiguation {i % 7})" for i in range(20_000)] + ["Budapest", "Pécs", "Москва", "東京"]


def test_size_follows_the_textbook_formula():
    bits, hashes = filter_size(1_000_000, 0.01)
    assert 9_500_000 < bits < 9_700_000 and hashes == 7  # 9.59 bits and 7 hashes per item at 1 %
    assert filter_size(10, 0.01) == filter_size(10_000, 0.01)  # a floor, so tiny runs stay useful
    with pytest.raises(ValueError):
        filter_size(100, 1.5)


def test_added_titles_always_pass_and_strangers_rarely():
    bits, hashes = filter_size(len(TITLES), 0.01)
    bloom = BloomFilter(bits, hashes)
    bloom.update(TITLES)
    assert all(title in bloom for title in TITLES)
    strangers = [f"Other page {i}" for i in range(20_000)]
    false_positives = sum(title in bloom for title in strangers)
    assert false_positives < 0.02 * len(strangers)  # designed for 1 %
    assert 0.4 < int.from_bytes(bloom.array, "little").bit_count() / bloom.bits < 0.6  # sized right


def test_hash_is_stable_across_processes():
    # Workers on other machines must agree on positions: a fixed digest, not Python's hash().
    assert title_hash("Budapest") == 0x8B4FFE3E93C35850522A424A1ED39F0F  # blake2b-128 of the UTF-8
    assert title_hash("Budapest") == title_hash("Budapest") != title_hash("budapest")
    assert title_hash("Budapest").bit_length() <= 128


def test_union_holds_both_halves_and_equals_one_filter_of_all():
    bits, hashes = filter_size(len(TITLES))
    shuffled = TITLES[:]
    random.Random(1).shuffle(shuffled)
    left, right, whole = BloomFilter(bits, hashes), BloomFilter(bits, hashes), BloomFilter(bits, hashes)
    left.update(shuffled[: len(shuffled) // 2])
    right.update(shuffled[len(shuffled) // 2:])
    whole.update(TITLES)
    merged = left.union(right)
    assert merged.array == whole.array
    assert all(title in merged for title in TITLES)
    with pytest.raises(ValueError, match="same size"):
        left.union(BloomFilter(bits + 8, hashes))


def test_round_trips_through_bytes():
    bits, hashes = filter_size(100)
    bloom = BloomFilter(bits, hashes)
    bloom.update(["Budapest", "Szeged"])
    again = BloomFilter(bits, hashes, bytes(bloom.array))
    assert "Budapest" in again and "Szeged" in again
    with pytest.raises(ValueError):
        BloomFilter(bits, hashes, b"\x00" * 3)


def test_the_combine_gives_the_same_filter_however_the_titles_are_split():
    from wikisilver.pipelines.title_filter import TitleFilterFn

    fn = TitleFilterFn(capacity=len(TITLES))
    # Small bundles stay sets of hashes; a bundle past bits/64 titles switches to the bit array.
    small = fn.create_accumulator()
    for title in TITLES[:100]:
        small = fn.add_input(small, title)
    assert isinstance(small, set)
    big = fn.create_accumulator()
    for title in TITLES[100:]:
        big = fn.add_input(big, title)
    assert isinstance(big, BloomFilter)
    merged = fn.extract_output(fn.merge_accumulators([small, big]))
    single = fn.create_accumulator()
    for title in TITLES:
        single = fn.add_input(single, title)
    assert merged == fn.extract_output(single)
    bloom = BloomFilter(*merged)
    assert all(title in bloom for title in TITLES)
    assert fn.extract_output(fn.merge_accumulators([fn.create_accumulator()])) == (fn.bits, fn.hashes, bytes(fn.bits // 8))
