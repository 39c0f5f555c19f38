"""ZIP code → state, by the first three digits (USPS sectional centers), and → city, from the USPS city
names bundled in models/data (41,749 ZIP codes, 250 KB; read once per process)."""

from __future__ import annotations

import gzip
from functools import cache
from importlib.resources import files

# (first ZIP3, last ZIP3, state); gaps are unassigned or military prefixes the service does not cover.
ZIP3_RANGES: tuple[tuple[int, int, str], ...] = (
    (6, 7, "PR"), (8, 8, "VI"), (9, 9, "PR"), (10, 27, "MA"), (28, 29, "RI"), (30, 38, "NH"), (39, 49, "ME"),
    (50, 59, "VT"), (60, 69, "CT"), (70, 89, "NJ"), (100, 149, "NY"), (150, 196, "PA"), (197, 199, "DE"),
    (200, 205, "DC"), (206, 219, "MD"), (220, 246, "VA"), (247, 268, "WV"), (270, 289, "NC"), (290, 299, "SC"),
    (300, 319, "GA"), (320, 349, "FL"), (350, 369, "AL"), (370, 385, "TN"), (386, 397, "MS"), (398, 399, "GA"),
    (400, 427, "KY"), (430, 459, "OH"), (460, 479, "IN"), (480, 499, "MI"), (500, 528, "IA"), (530, 549, "WI"),
    (550, 567, "MN"), (570, 577, "SD"), (580, 588, "ND"), (590, 599, "MT"), (600, 629, "IL"), (630, 658, "MO"),
    (660, 679, "KS"), (680, 693, "NE"), (700, 714, "LA"), (716, 729, "AR"), (730, 749, "OK"), (750, 799, "TX"),
    (800, 816, "CO"), (820, 831, "WY"), (832, 838, "ID"), (840, 847, "UT"), (850, 865, "AZ"), (870, 884, "NM"),
    (885, 885, "TX"), (889, 898, "NV"), (900, 961, "CA"), (967, 968, "HI"), (969, 969, "GU"), (970, 979, "OR"),
    (980, 994, "WA"), (995, 999, "AK"),
)  # fmt: skip


def state_of_zip(zip_code: str) -> str | None:
    prefix = int(zip_code[:3])
    for first, last, state in ZIP3_RANGES:
        if first <= prefix <= last:
            return state
    return None


@cache
def _cities() -> dict[str, str]:
    cities: dict[str, str] = {}
    with gzip.open(str(files("models") / "data" / "zip_cities.csv.gz"), "rt", encoding="utf-8") as rows:
        for row in rows:
            if not row.startswith("#"):
                zip_code, city, _state = row.rstrip("\n").split(",")
                cities[zip_code] = city
    return cities


def city_of_zip(zip_code: str) -> str:
    """The ZIP code's city as USPS names it; "" for a ZIP code it does not list."""
    return _cities().get(zip_code, "")
