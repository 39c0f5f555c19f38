"""A request body as a JSON object, parsed once, refusing what RFC 8259 does not call JSON text and what no Lineup
request needs (issue 27, findings 8 and 14).

- Refused like any malformed body, saying why: a byte order mark (RFC 8259 §8.1), text that is not UTF-8,
  `NaN`/`Infinity`/`-Infinity` (Python's json reads them), and a key given twice in one object (which of the two
  would count?).
- Counted while the body is scanned, before anything is built: an object with more than LINEUP_MAX_JSON_MEMBERS
  members is refused as soon as the scan meets the one too many. json's own hook saw an object only once all of it
  was parsed: a 12 MiB object of a million members took a second of the event loop before it was refused.
- A body larger than IN_THREAD_ABOVE is scanned and parsed in a worker thread: the event loop goes on answering
  (`/healthz` under four clients posting 12 MiB bodies). The scan lets the GIL go between strides.
"""

from __future__ import annotations

import asyncio
import json
import re

JsonObject = dict[str, object]

BOM = b"\xef\xbb\xbf"
IN_THREAD_ABOVE = 64 * 1024  # smaller bodies parse in well under a millisecond: a thread hop would cost more
STRIDE = 256 * 1024  # bytes one search of the scan looks through (about a millisecond, the GIL held)
_STRUCTURE = re.compile(rb'[{}\[\]:"]')
_OPEN_OBJECT, _OPEN_ARRAY, _CLOSE, _QUOTE = b"{", b"[", b"}]", b'"'
_SHOWN_KEY = re.compile(r"[\w .-]{1,40}")


class BodyProblem(ValueError):
    """Why the body is not a JSON object Lineup takes: the words of the answer's `errors`."""


def parse(raw: bytes, max_members: int) -> JsonObject:
    """The body's JSON object, or BodyProblem saying why not."""
    if raw.startswith(BOM):
        raise BodyProblem("Request body starts with a byte order mark; send UTF-8 without one")
    try:
        # surrogatepass as json itself decodes bytes: an escaped lone surrogate reaches the field it is in, which
        # refuses it by name (models.requests.wellformed)
        text = raw.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        raise BodyProblem("Request body is not UTF-8 text") from None
    if _crowded(raw, max_members):
        raise BodyProblem(f"A JSON object of the body has more than {max_members} members")
    try:
        payload = json.loads(text, object_pairs_hook=_unique, parse_constant=_no_constant)
    except BodyProblem:
        raise
    except (ValueError, RecursionError):
        raise BodyProblem("Request body is not valid JSON") from None
    if not isinstance(payload, dict):
        raise BodyProblem("Request body must be a JSON object")
    return payload


async def parse_off_loop(raw: bytes, max_members: int) -> JsonObject:
    """parse(), in a worker thread for a large body."""
    if len(raw) > IN_THREAD_ABOVE:
        return await asyncio.to_thread(parse, raw, max_members)
    return parse(raw, max_members)


def _crowded(raw: bytes, limit: int) -> bool:
    """True when an object of the body has more than `limit` members, found by scanning structure only: a string
    is jumped over (memchr to its closing quote), nothing is built. A body that is not JSON at all is left to json
    to describe."""
    members: list[int | None] = []  # per open container: an object's members so far (its colons); None: an array
    position, end = 0, len(raw)
    while position < end:
        found = _STRUCTURE.search(raw, position, min(end, position + STRIDE))
        if found is None:
            position += STRIDE
            continue
        mark, position = raw[found.start() : found.end()], found.end()
        if mark == _QUOTE:
            position = _after_string(raw, position)
        elif mark in (_OPEN_OBJECT, _OPEN_ARRAY):
            members.append(0 if mark == _OPEN_OBJECT else None)
        elif mark in _CLOSE:
            if members:
                members.pop()
        elif members and (count := members[-1]) is not None:  # a colon: one more member of this object
            if count == limit:
                return True
            members[-1] = count + 1
    return False


def _after_string(raw: bytes, position: int) -> int:
    """Where the string that opened just before `position` ends (past its closing quote; the end if never)."""
    while (quote := raw.find(_QUOTE, position)) >= 0:
        slashes = 0
        while raw[quote - 1 - slashes] == 0x5C:  # backslashes: an odd run escapes the quote
            slashes += 1
        if slashes % 2 == 0:
            return quote + 1
        position = quote + 1
    return len(raw)


def _unique(pairs: list[tuple[str, object]]) -> JsonObject:
    found = dict(pairs)
    if len(found) == len(pairs):
        return found
    seen: set[str] = set()
    for key, _ in pairs:
        if key in seen:
            shown = f" ({key!r})" if _SHOWN_KEY.fullmatch(key) else ""  # a name that reads as one, not any text
            raise BodyProblem(f"A JSON object of the body has a key twice{shown}")
        seen.add(key)
    return found


def _no_constant(name: str) -> object:
    raise BodyProblem(f"Request body holds {name}, which is not a JSON number")
