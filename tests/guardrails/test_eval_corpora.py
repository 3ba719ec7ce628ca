"""The evaluation corpora of bench/guardrail_eval: frozen splits, generators, harness.

The held-out split is frozen: its files must match the SHA-256 in the manifest, so a rule
cannot be tuned on it by editing it silently. Regenerating the corpora is a deliberate act
(``python bench/guardrail_eval/build.py``) that changes the manifest in the same commit.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from guardrail_eval import bech32  # noqa: E402
from guardrail_eval.build import SEED, split_of  # noqa: E402
from guardrail_eval.carriers import carrier, contexts_for  # noqa: E402
from guardrail_eval.harness import evaluate_batch, leaked, load  # noqa: E402
from guardrail_eval.ordinary import card_like  # noqa: E402
from guardrail_eval.values import sample_values  # noqa: E402

DATA = ROOT / "bench" / "guardrail_eval" / "data"
MANIFEST = json.loads((DATA / "manifest.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(MANIFEST["files"]))
def test_each_frozen_file_matches_its_manifest_hash(name: str) -> None:
    blob = (DATA / name).read_bytes()
    assert hashlib.sha256(blob).hexdigest() == MANIFEST["files"][name]["sha256"], name
    lines = gzip.decompress(blob).decode("utf-8").splitlines()
    assert len(lines) == MANIFEST["files"][name]["items"]


def test_the_manifest_forbids_tuning_on_heldout() -> None:
    assert "never be tuned on the held-out" in MANIFEST["rule"]
    assert {"secrets-heldout.jsonl.gz", "ordinary-heldout.jsonl.gz"} <= set(MANIFEST["files"])


@pytest.mark.parametrize("corpus", ["secrets", "ordinary"])
def test_every_item_sits_in_the_split_its_seeded_hash_names(corpus: str) -> None:
    for split in ("dev", "heldout"):
        ids = [item["id"] for item in load(split, corpus, DATA)]
        assert ids
        assert all(split_of(i, MANIFEST["seed"]) == split for i in ids)
    assert MANIFEST["seed"] == SEED


def test_the_secret_generators_are_deterministic() -> None:
    first = [(s.value, s.format) for s in sample_values(11)]
    assert first == [(s.value, s.format) for s in sample_values(11)]
    assert first != [(s.value, s.format) for s in sample_values(12)]
    groups = {s.group for s in sample_values(11)}
    assert {
        "card",
        "iban",
        "national-id",
        "ssn",
        "phone",
        "email",
        "provider-key",
        "private-key",
        "crypto-wallet",
    } <= groups


def test_carriers_are_deterministic_and_record_the_secret_spans() -> None:
    values = sample_values(5)
    items = []
    for seed in (1, 1):
        rng = random.Random(seed)
        items.append([carrier(v, v, c, rng) for v in values for c in contexts_for(v)])
    assert items[0] == items[1]
    for item in items[0]:
        for secret in item["secrets"]:
            assert secret["surface"] in item["text"] or item["context"] == "json-escaped"


def test_bech32_encoder_reproduces_the_bip_test_vectors() -> None:
    # BIP-173 (segwit v0, bech32) and BIP-350 (v1 taproot, bech32m) test vectors.
    v0 = bytes.fromhex("751e76e8199196d454941c45d1b3a323f1433bd6")
    assert bech32.segwit_address("bc", 0, v0) == "bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4"
    v1 = bytes.fromhex("79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798")
    assert (
        bech32.segwit_address("bc", 1, v1)
        == "bc1p0xlxvlhemja6c4dqv22uapctqupfhlxm9h8z3k2e72q4k9hcz7vqzk5jj0"
    )


def test_no_ordinary_identifier_is_a_card_by_the_acceptance_rule() -> None:
    for split in ("dev", "heldout"):
        for item in load(split, "ordinary", DATA):
            for run in re.findall(r"\d{12,19}", item["text"]):
                assert not card_like(run), (item["id"], run)
    assert card_like("4111111111111111")
    assert not card_like("356938035643809")


def test_leak_rule_allows_first_six_and_last_four_digits_of_a_card() -> None:
    card = {"numeric": True, "card": True, "probes": ["4111111111111111"]}
    assert not leaked(card, "card 411111******1111 on file")
    assert leaked(card, "card 4111 1111 1111 on file")  # a group dropped: 12 digits show
    assert leaked(card, "41 11 11 11 11 11 11 11")
    ssn = {"numeric": True, "card": False, "probes": ["123456789"]}
    assert leaked(ssn, "ssn 123-45-6789.")
    assert not leaked(ssn, "ssn 123-45-[REDACTED]6789")
    key = {"numeric": False, "card": False, "probes": ["shpat_abc123"]}
    assert leaked(key, "token: SHPAT_abc123")
    assert not leaked(key, "token: [REDACTED]")


def test_the_harness_runs_a_tiny_sample_through_a_real_agent() -> None:
    secrets = load("dev", "secrets", DATA)
    ordinary = load("dev", "ordinary", DATA)
    by_channel = {i["channel"]: i for i in secrets}
    items = [by_channel["text"], by_channel["tool-args"], by_channel["structured"], ordinary[0]]
    outcomes = evaluate_batch(("PIIDetector", items, 1))
    assert [o["id"] for o in outcomes] == [i["id"] for i in items]
    assert all(o["error"] == "" for o in outcomes)
    assert all(isinstance(o["leaks"], list) for o in outcomes[:3])
    assert isinstance(outcomes[3]["altered"], bool)
