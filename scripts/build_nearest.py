"""Builds the third stage's stored lines (activities/data/nearest_lines.npz) from the training corpus: each line's
embedding (int8), its first code, and the corpus fingerprint tests/unit/test_nearest.py checks.

    .venv/bin/python -m scripts.build_nearest
"""

import numpy as np

from activities.nearest import DATA, SCALE, embed, fingerprint, readable, text_of
from testkit.corpus import corpus_lines

BATCH = 64  # the encoder runs a list as one batch: faster than one text at a time, bounded in memory


def main() -> None:
    every = corpus_lines()
    lines = [line for line in every if readable(text_of(line["signal"]))]  # in a language the encoder knows
    texts = [text_of(line["signal"]) for line in lines]
    vectors = np.vstack([embed(texts[i : i + BATCH]) for i in range(0, len(texts), BATCH)])
    DATA.parent.mkdir(exist_ok=True)
    np.savez_compressed(
        DATA,
        vectors=np.round(vectors * SCALE).astype(np.int8),
        codes=np.array([line["codes"][0] for line in lines]),
        ids=np.array([line["id"] for line in lines]),
        fingerprint=np.array(fingerprint(every)),
    )
    print(f"{len(lines)} of {len(every)} lines → {DATA} ({DATA.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
