"""Retro-blind check of the classifier's second stages: what the word table (routing/lexicon.py) and the learned stage
(routing/learned.py) would have decided on each blind held-out set at the time the set was blind. For each set, the tree
of the commit the set was measured blind under is unpacked; its own classifier decides the set's lines, and today's
stage code with counts built only from ITS training corpus (tests/corpus/ at that commit: nothing learned from that set
or any later one) reads the lines its rules left to a second stage (unmatched; for the learned stage also those that
tree's own word table decided, as it replaces the word table). Prints, per set, the blind figure then and the figure
with each stage; `with_spent` is the learned stage counted as today's is, from that tree's corpus AND its held-out sets
measured before (every file but the sets measured under that commit). The learned stage's thresholds were chosen on
today's training corpus, which holds the lines older sets' misses taught: a slightly optimistic figure for the older
sets.

    .venv/bin/python scripts/retro_blind.py [--misses]
"""

import argparse
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# set file → the commit it was measured blind under (the parent of the round that learned from it); None: HEAD
SETS = {
    "blind_2026_12_02b.jsonl": "393d408^",
    "blind_2026_12_02d.jsonl": "d8dd1f1^",
    "blind_2026_12_02e.jsonl": "6ab9dcd^",
    "blind_2026_12_02g.jsonl": "6d4dbce^",
    "blind_2026_12_02h.jsonl": "87ce22d^",
    "blind_2026_12_02i.jsonl": "0a22bcb^",
    "blind_2026_12_02j.jsonl": "2b1677f^",
    "blind_2026_12_02k.jsonl": "a162cd0^",
    "blind_2026_12_02l.jsonl": "8b2b455",
    "blind_2026_12_02m.jsonl": "3529684",  # its merge, before round 12 (which decides it alike)
    "blind_2026_12_02n.jsonl": "d96ac3c",  # its merge, before round 13 (which decides it alike)
    # hp/hq/hr: the merge of hr (all three sets in, round 13's rules), before round 14 (which decides them 152/175)
    "blind_2026_12_03p.jsonl": "dc5b87b",
    "blind_2026_12_03q.jsonl": "dc5b87b",
    "blind_2026_12_03r.jsonl": "dc5b87b",
    # hs/ht: the merge of ht (both sets in, round 13's rules), before round 14 (which decides them 128/152, as round 15)
    "blind_2026_12_03s.jsonl": "42de755",
    "blind_2026_12_03t.jsonl": "42de755",
    # hu/hv: the merge of hv (both sets in, round 15's rules), before round 16 (which decides them 117/151)
    "blind_2026_12_03u.jsonl": "ab6c038",
    "blind_2026_12_03v.jsonl": "ab6c038",
    # hw/hx: the merge of hx (both sets in, round 16's rules), before round 17 (which decides them 131/151 as well)
    "blind_2026_12_03w.jsonl": "61c0071",
    "blind_2026_12_03x.jsonl": "61c0071",
    # hy/hz: each set's own branch head (round 17's rules, the set in), before round 18 (hy 50/75, hz 60/73)
    "blind_2026_12_03y.jsonl": "3b88b87",
    "blind_2026_12_03z.jsonl": "9c0c604",
    # ia/ib: each set's own branch head (round 18's rules, the set in), before round 19 (ia 53/75, ib 56/76)
    "blind_2026_12_03ia.jsonl": "e5741ea",
    "blind_2026_12_03ib.jsonl": "0e74e23",
    # ic/id: each set's own branch head (round 19's rules, the set in), before round 21 (ic 55/78, id 48/77 under 20)
    "blind_2026_12_03ic.jsonl": "01139dc",
    "blind_2026_12_03id.jsonl": "0b074ba",
    # ie/if: each set's own branch head (round 20's rules, the set in), not learned from yet (ie 53/73, if 55/78)
    "blind_2026_12_03ie.jsonl": "5573428",
    "blind_2026_12_03if.jsonl": "e2c9ce0",
    # ig/ih: each set's own branch head (the learned stage's rules, errors-2026.12.22, the set in)
    "blind_2026_12_03ig.jsonl": "eaf9117",
    "blind_2026_12_03ih.jsonl": "f4a6e2a",
    # ii/ij: each set's own branch head (round 22's rules, errors-2026.12.23, the set in)
    "blind_2026_12_03ii.jsonl": "7ece9f8",
    "blind_2026_12_03ij.jsonl": "c3837f0",
    # ik/il: their merge (both sets in, errors-2026.12.24)
    "blind_2026_12_04ik.jsonl": "0567e28",
    "blind_2026_12_04il.jsonl": "0567e28",
    # im/in: errors-2026.12.24 again after the learned stage that counted measured sets was reverted
    "blind_2026_12_04im.jsonl": "eb1973d",
    "blind_2026_12_04in.jsonl": "eb1973d",
    # io/ip: both sets in, errors-2026.12.26 (the readings of .24), before round 24 (which decides them alike)
    "blind_2026_12_04io.jsonl": "ec5ff3e",
    "blind_2026_12_04ip.jsonl": "ec5ff3e",
    # iq/ir: both sets in, errors-2026.12.27, before round 25 (which decides them 87/120, as errors-2026.12.24)
    "blind_2026_12_04iq.jsonl": "8cb4e48",
    "blind_2026_12_04ir.jsonl": "8cb4e48",
    # is/it: both sets in, errors-2026.12.30 (which decides them as .28 and .29 did)
    "blind_2026_12_04is.jsonl": "aded9d5",
    "blind_2026_12_04it.jsonl": "aded9d5",
    # iu/iv: both sets in, errors-2026.12.31 (iv alike under .30; iu 18/62 under .30, 19/62 under .31)
    "blind_2026_12_04iu.jsonl": "a6aec0c",
    "blind_2026_12_04iv.jsonl": "a6aec0c",
}

INNER = r"""
import importlib.util, json, sys
from datetime import UTC, datetime
from pathlib import Path
from routing.classifier import FailureSignal, classify, Classification
from routing.codes import ErrorCode, class_of
from routing.decider import RoutingContext, RunState, decide
import types
try:
    import routing.rules.lexicon_words
except ImportError:  # a tree from before the word table was a module: the table is built below from its corpus
    stub = types.ModuleType("routing.rules.lexicon_words")
    stub.WORDS = {}
    sys.modules["routing.rules.lexicon_words"] = stub
spec = importlib.util.spec_from_file_location("lexicon_new", sys.argv[1])
lex = importlib.util.module_from_spec(spec); spec.loader.exec_module(lex)
tree, set_file, misses = Path(sys.argv[2]), sys.argv[3], sys.argv[4] == "1"
corpus = sorted((tree / "tests" / "corpus").glob("*.jsonl"))
training = [json.loads(l) for f in corpus for l in f.read_text().splitlines() if l.strip()]
table = lex.build(training)
# today's learned stage on today's word tokeniser, its counts (a placeholder first) built from this tree's corpus
saved = {k: sys.modules.get(k) for k in ("routing.lexicon", "routing.rules.learned_counts")}
counts_stub = types.ModuleType("routing.rules.learned_counts")
counts_stub.DOCS, counts_stub.COUNTS = {"unknown": 1}, {}
sys.modules["routing.lexicon"], sys.modules["routing.rules.learned_counts"] = lex, counts_stub
spec = importlib.util.spec_from_file_location("learned_new", sys.argv[5])
learned = importlib.util.module_from_spec(spec); spec.loader.exec_module(learned)
for name, module in saved.items():
    if module is None:
        sys.modules.pop(name, None)
    else:
        sys.modules[name] = module
learned_model = learned.model(*learned.build(training))
# the same stage with counts also from this tree's held-out lines already measured (every file but the sets measured
# blind under this very commit): what the stage would read had it learned from every set measured before
measured_here = set(sys.argv[6].split(","))
spent = [json.loads(l) for f in sorted((tree / "tests" / "heldout").glob("*.jsonl")) if f.name not in measured_here
         for l in f.read_text().splitlines() if l.strip()]
spent_model = learned.model(*learned.build(training + spent))
NOW = datetime(2026, 1, 1, tzinfo=UTC)
state = RunState(attempts=1, max_attempts=8, other_candidate_eligible=True)
def show(stage, right, line, code, decision, why):
    if misses:
        verdict = "RIGHT" if right else "WRONG"
        want = f"(want {line['codes']} {line['decisions']})"
        print(f"    {stage} {verdict} {line['id']}: {code} → {decision} {why} {want}")
before = after = decided = wrong_new = 0
tally = {stage: {"right": 0, "decided": 0, "made_wrong": 0} for stage in ("learned", "spent")}
def learned_stage(stage, m, r, line):  # the stage with model m on a line the rules left: right or not
    reading = learned.read(lex.signal_text(line["signal"]), m)
    if reading is None:
        return "unknown" in line["codes"] and "fail" in line["decisions"]
    tally[stage]["decided"] += 1
    r2 = r.model_copy(update={"code": reading.code, "error_class": class_of(reading.code), "rule": "learned"})
    d2 = decide(r2, RoutingContext.office, state, rand=0.5)
    right = reading.code.value in line["codes"] and d2.kind.value in line["decisions"]
    show(stage, right, line, reading.code.value, d2.kind.value, reading.words)
    return right
lines = [json.loads(l) for l in (tree / "tests" / "heldout" / set_file).read_text().splitlines() if l.strip()]
for line in lines:
    r = classify(FailureSignal.model_validate(line["signal"]), NOW)
    d = decide(r, RoutingContext.office, state, rand=0.5)
    ok = r.code.value in line["codes"] and d.kind.value in line["decisions"]
    before += ok
    ok2 = ok
    if r.rule == "unmatched":
        reading = lex.read(lex.signal_text(line["signal"]), table)
        if reading is not None:
            decided += 1
            r2 = r.model_copy(update={"code": reading.code, "error_class": class_of(reading.code), "rule": "lexicon"})
            d2 = decide(r2, RoutingContext.office, state, rand=0.5)
            ok2 = reading.code.value in line["codes"] and d2.kind.value in line["decisions"]
            wrong_new += ok and not ok2
            show("lexicon", ok2, line, reading.code.value, d2.kind.value, reading.signals)
    after += ok2
    for stage, m in (("learned", learned_model), ("spent", spent_model)):
        right = ok
        if r.rule == "unmatched" or r.rule.startswith("lexicon"):
            right = learned_stage(stage, m, r, line)
            tally[stage]["made_wrong"] += ok and not right
        tally[stage]["right"] += right
print(json.dumps({"set": set_file, "lines": len(lines), "blind": before, "with_stage2": after,
                  "stage2_decided": decided, "made_wrong": wrong_new, "words": len(table),
                  **{f"with_{stage}" if k == "right" else f"{stage}_{k}": n
                     for stage, t in tally.items() for k, n in t.items()},
                  "spent_lines": len(spent)}))
"""


def unpack(commit: str, into: Path) -> None:
    data = subprocess.run(
        ["git", "-C", str(ROOT), "archive", commit, "routing", "tests"], capture_output=True, check=True
    ).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(into, filter="data")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--misses", action="store_true", help="list every line the second stage decides")
    args = parser.parse_args(argv)
    for set_file, commit in SETS.items():
        with tempfile.TemporaryDirectory() as tmp:
            unpack(commit, Path(tmp))
            subprocess.run(
                [
                    sys.executable,
                    "-c",
                    INNER,
                    str(ROOT / "routing" / "lexicon.py"),
                    tmp,
                    set_file,
                    "1" if args.misses else "0",
                    str(ROOT / "routing" / "learned.py"),
                    ",".join(s for s, c in SETS.items() if c == commit),
                ],
                cwd=tmp,
                env={"PYTHONPATH": tmp, "PATH": "/usr/bin:/bin"},
                check=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
