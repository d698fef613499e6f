"""The two building blocks of the word-list tables (`translated.py`, `translated_requests.py`): a list of words as
one alternation, and two lists read only when they stand near each other in one sentence."""


def any_of(*words: str) -> str:
    return "(?:" + "|".join(words) + ")"


def near(a: str, b: str, span: int = 48) -> str:
    """Either word list within `span` characters of the other, inside one sentence (a dot inside a host name,
    "api.anthropic.com", ends none)."""
    gap = "(?:[^.。!?！？\\n]|\\.(?=\\S)){0," + str(span) + "}"
    return f"{a}{gap}{b}|{b}{gap}{a}"
