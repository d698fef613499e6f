"""scripts/check_heldout_lines.py --similar: a collected line that repeats a training or held-out text is named (by
id only), so a held-out set measures something new and a training line never leaks a held-out one."""

import json
from pathlib import Path

from scripts.check_heldout_lines import main, similar

ROOT = Path(__file__).resolve().parents[2]


def _corpus_line() -> dict[str, object]:
    raw = (ROOT / "tests" / "corpus" / "providers.jsonl").read_text(encoding="utf-8").splitlines()[0]
    line: dict[str, object] = json.loads(raw)
    return line


def _collected(path: Path, *texts: str) -> Path:
    rows = [
        {
            "id": f"kz-collected-{n}",
            "family": "some-app",
            "executor": "openai",
            "source": "https://example.org/issue/1",
            "signal": {"phase": "after_start", "status": None, "error_text": text},
            "codes": ["unknown"],
            "decisions": ["fail"],
            "note": "a test line",
        }
        for n, text in enumerate(texts)
    ]
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_a_near_copy_of_a_training_text_is_named_and_a_new_text_is_not(tmp_path: Path) -> None:
    known = _corpus_line()
    signal = known["signal"]
    assert isinstance(signal, dict)
    text = str(signal.get("error_text") or signal.get("body"))
    near_copy = text.upper().replace("1", "7")  # the same words, other case and numbers
    path = _collected(tmp_path / "set.jsonl", near_copy, "the flux capacitor of the ship's galley is misaligned")

    report = similar([path], ROOT)

    assert [entry.split(": text like ")[0] for entry in report] == [f"{path}:1"]  # (the first alike line it meets)
    assert text not in report[0]  # only ids, never the other line's text


def test_similar_lines_fail_the_check_only_when_asked_for(tmp_path: Path, capsys) -> None:
    signal = _corpus_line()["signal"]
    assert isinstance(signal, dict)
    path = _collected(tmp_path / "set.jsonl", str(signal.get("error_text") or signal.get("body")))

    assert main([str(path)]) == 0
    assert main(["--similar", str(path)]) == 1
    assert "text like" in capsys.readouterr().out
