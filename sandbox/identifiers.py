"""Identifier rules (Luhn, IMEI, ICCID, MDN) and generators for numbers the sandbox hands out."""

import random

# One real area code per USPS state/territory; the carrier assigns MDNs in the service state's NPA.
# A grid reads better than one state per line, so the formatter leaves it alone.
# fmt: off
STATE_AREA_CODES: dict[str, str] = {
    "AL": "205", "AK": "907", "AZ": "602", "AR": "501", "CA": "213", "CO": "303", "CT": "203",
    "DE": "302", "DC": "202", "FL": "305", "GA": "404", "HI": "808", "ID": "208", "IL": "312",
    "IN": "317", "IA": "515", "KS": "316", "KY": "502", "LA": "504", "ME": "207", "MD": "410",
    "MA": "617", "MI": "313", "MN": "612", "MS": "601", "MO": "314", "MT": "406", "NE": "402",
    "NV": "702", "NH": "603", "NJ": "201", "NM": "505", "NY": "212", "NC": "704", "ND": "701",
    "OH": "216", "OK": "405", "OR": "503", "PA": "215", "RI": "401", "SC": "803", "SD": "605",
    "TN": "615", "TX": "214", "UT": "801", "VT": "802", "VA": "703", "WA": "206", "WV": "304",
    "WI": "414", "WY": "307", "PR": "787", "VI": "340", "GU": "671", "AS": "684", "MP": "670",
}
# fmt: on
DEFAULT_AREA_CODE = "212"


def luhn_check_digit(payload: str) -> str:
    """Check digit that makes `payload + digit` pass the Luhn test."""
    total = 0
    # Doubling starts at the rightmost payload digit, because the check digit will sit to its right.
    for index, char in enumerate(reversed(payload)):
        digit = int(char)
        if index % 2 == 0:
            digit = digit * 2 - 9 if digit > 4 else digit * 2
        total += digit
    return str((10 - total % 10) % 10)


def luhn_valid(number: str) -> bool:
    """True when `number` is all digits and its last digit is the Luhn check digit."""
    if len(number) < 2 or not number.isdigit():
        return False
    return luhn_check_digit(number[:-1]) == number[-1]


def is_valid_imei(imei: str) -> bool:
    """15 digits with a Luhn check digit."""
    return len(imei) == 15 and luhn_valid(imei)


def is_valid_iccid(iccid: str) -> bool:
    """18-22 digits, starting with the telecom MII 89, with a Luhn check digit."""
    return 18 <= len(iccid) <= 22 and iccid.startswith("89") and luhn_valid(iccid)


def is_valid_mdn(mdn: str) -> bool:
    """10 NANP digits: neither area code nor exchange starts with 0 or 1."""
    return len(mdn) == 10 and mdn.isdigit() and mdn[0] not in "01" and mdn[3] not in "01"


def area_code_for_state(state: str) -> str:
    """The state's area code; unknown states get 212 so activation never fails on geography."""
    return STATE_AREA_CODES.get(state.upper(), DEFAULT_AREA_CODE)


def random_digits(count: int) -> str:
    """`count` random decimal digits (leading zeros allowed)."""
    return "".join(random.choice("0123456789") for _ in range(count))


def generate_mdn(*, area_code: str) -> str:
    """A valid MDN in `area_code`: exchange starts 2-9 and is neither N11 nor the fictional 555."""
    while True:
        exchange = random.choice("23456789") + random_digits(2)
        if exchange[1:] != "11" and exchange != "555":
            return area_code + exchange + random_digits(4)


def generate_iccid() -> str:
    """A 20-digit ICCID: 89 (telecom) + 01 (NANP) + issuer 260 + 12 random digits + Luhn digit."""
    payload = "8901260" + random_digits(12)
    return payload + luhn_check_digit(payload)


def generate_esim_iccid() -> str:
    """An eSIM profile's 19- or 20-digit ICCID: 89 (telecom) + 01 (NANP) + issuer 261, Luhn digit last."""
    payload = "8901261" + random_digits(random.choice((11, 12)))
    return payload + luhn_check_digit(payload)
