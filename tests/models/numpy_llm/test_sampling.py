"""Choosing the next token: greedy, lazy masking by a constraint, penalties and the seeded
sampler chain (no model: hand-made logits)."""

from __future__ import annotations

import numpy as np

from procession.models._local_settings import Sampling
from procession.models._numpy_llm.sampling import choose

LOGITS = np.array([0.0, 5.0, 3.0, 4.0, -1.0] + [-5.0] * 995, dtype=np.float32)


def rng() -> np.random.Generator:
    return np.random.default_rng(0)


def test_greedy_takes_the_most_likely_token_the_constraint_allows() -> None:
    greedy = Sampling()
    assert choose(LOGITS, greedy, recent=[], rng=rng()) == 1
    assert choose(LOGITS, greedy, recent=[], rng=rng(), allows=lambda t: t not in (1, 3)) == 2
    assert choose(LOGITS, greedy, recent=[], rng=rng(), allows=lambda t: t == 999) == 999
    assert choose(LOGITS, greedy, recent=[], rng=rng(), allows=lambda t: False) is None


def test_penalties_lower_repeated_tokens() -> None:
    assert choose(LOGITS, Sampling(repeat_penalty=2.0), recent=[1], rng=rng()) == 3
    assert choose(LOGITS, Sampling(presence_penalty=1.5), recent=[1], rng=rng()) == 3
    assert choose(LOGITS, Sampling(frequency_penalty=0.6), recent=[1, 1], rng=rng()) == 3
    assert choose(LOGITS, Sampling(frequency_penalty=0.6), recent=[1], rng=rng()) == 1


def test_sampling_is_seeded_and_stays_within_top_k_and_the_constraint() -> None:
    warm = Sampling(temp=1.5, top_k=3, top_p=1.0, min_p=0.0)
    draws = [choose(LOGITS, warm, recent=[], rng=np.random.default_rng(s)) for s in range(200)]
    assert set(draws) == {1, 2, 3}
    again = [choose(LOGITS, warm, recent=[], rng=np.random.default_rng(s)) for s in range(200)]
    assert draws == again
    allowed = {
        choose(LOGITS, warm, recent=[], rng=np.random.default_rng(s), allows=lambda t: t != 1)
        for s in range(200)
    }
    assert allowed == {0, 2, 3}


def test_min_p_and_top_p_cut_the_unlikely_tail() -> None:
    sharp = Sampling(temp=1.0, top_k=40, top_p=1.0, min_p=0.5)  # only 1 (e^-1 < 0.5)
    assert {choose(LOGITS, sharp, recent=[], rng=np.random.default_rng(s)) for s in range(50)} == {
        1
    }
    nucleus = Sampling(temp=1.0, top_k=40, top_p=0.6, min_p=0.0)  # p(1) ~ 0.66 alone
    assert {
        choose(LOGITS, nucleus, recent=[], rng=np.random.default_rng(s)) for s in range(50)
    } == {1}
