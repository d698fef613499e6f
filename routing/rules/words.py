"""The building blocks of the word-list tables (`translated.py`, `translated_requests.py`): a list of words as one
alternation, two lists read only when they stand near each other in one sentence, and a reading found only in a text
that says something else too."""


def any_of(*words: str) -> str:
    return "(?:" + "|".join(words) + ")"


def near(a: str, b: str, span: int = 48) -> str:
    """Either word list within `span` characters of the other, inside one sentence (a dot inside a host name,
    "api.anthropic.com", ends none)."""
    gap = "(?:[^.。!?！？\\n]|\\.(?=\\S)){0," + str(span) + "}"
    return f"{a}{gap}{b}|{b}{gap}{a}"


def found(pattern: str, given: str | None = None) -> str:
    """The pattern anywhere in the text, and `given` anywhere too: both looked for from where the match is tried (a
    caller anchors it at the text's start, so that each is looked for once)."""
    return f"(?=.*{given}).*?(?:{pattern})" if given else f".*?(?:{pattern})"
