"""US ZIP codes: their state, their city as USPS writes it, the other city names USPS accepts for them, and
whether the service is sold there. The data is the `zipcodes` package's (rebuilt monthly from USPS's ZIP Locale
Detail, compiled into its wheel: offline). Turning the package's 42,000 records into Python objects holds the GIL
for half a second on an idle machine, seconds on a busy one, so no serving process does it: a child process writes
the ZIP codes Lineup reads into one compact file of the data dir, once per version of the package, and a process
reads that file whole (about a millisecond) on its first lookup."""

from __future__ import annotations

import fcntl
import logging
import os
import re
import struct
import subprocess
import sys
from dataclasses import dataclass, field
from functools import cache
from importlib.metadata import version
from pathlib import Path

from pydantic import Field
from scourgify import normalize_address_record
from scourgify.exceptions import AddressNormalizationError

from models.envelope import Shape, refuse
from models.settings import get_settings
from models.types import ActionRequest, AddressLine, City, State, Zip5

log = logging.getLogger("lineup.address")

# ZIP codes where a line is not sold: a military post office (APO/FPO/DPO) has no service address, and a
# unique ZIP belongs to one organization's mail room (the IRS at 00501). Both are still real ZIP codes.
UNSERVED_KINDS = frozenset({"MILITARY", "UNIQUE"})
INVALID_ZIP = "Invalid zip code"
UNREADABLE = "Address one could not be read as a street address (house number and street name)"
# Publication 28 (213.1): with a unit designator, no pound sign (`APT # 4` is `APT 4`); `# 4` alone keeps it.
DESIGNATED_POUND = re.compile(r"^([A-Z]+) # ")
# The index file's layout (ZipIndex); a new layout takes a new number, so a file of the old one is rebuilt.
INDEX_LAYOUT = 1
ZIP_CODES = 100_000  # every five-digit code has a slot in the index's table
SLOT = struct.Struct("<I")
BUILD_TIMEOUT_SECONDS = 300.0  # the child building the index, on a machine as busy as the soak's


@dataclass(frozen=True)
class ZipArea:
    """One active ZIP code as USPS lists it."""

    zip_code: str
    city: str  # USPS's preferred city name, in capitals
    state: str  # two letters: a state, DC, a territory, or AA/AE/AP for military mail
    cities: frozenset[str]  # every name USPS accepts for the ZIP's addresses (the preferred one too), in capitals
    kind: str  # STANDARD, PO BOX, UNIQUE or MILITARY

    @property
    def served(self) -> bool:
        return self.kind not in UNSERVED_KINDS


class GetCityState(ActionRequest):
    """The city and state of a ZIP code, as USPS writes them."""

    zip_code: Zip5


class AddressValidationUsps(ActionRequest):
    """A street address standardized by USPS Publication 28, its ZIP code checked against its state and city."""

    address_one: AddressLine
    address_two: AddressLine | None = None
    city: City
    state: State
    zip_code: Zip5

    def __repr__(self) -> str:  # a customer's address: never in a log line
        return "AddressValidationUsps(…)"


class CityState(Shape):
    zip_code: str
    city: str  # in capitals, as USPS writes it
    state: str


class StandardizedAddress(Shape):
    """Lineup's keys, and the same address under USPS Web Tools' verify answer's keys, which the original passes
    through and its native apps read (decisions.md): there Address1 is the unit line and Address2 the street."""

    address_one: str
    address_two: str | None
    city: str
    state: str
    zip_code: str
    Address1: str = Field(description='USPS\'s name for the unit line (address_two), "" when there is none')
    Address2: str = Field(description="USPS's name for the street line (address_one)")
    City: str
    State: str
    Zip5: str
    Zip4: str = Field(description='the ZIP+4 add-on, "" when not known')

    @classmethod
    def of(cls, *, street: str, unit: str | None, city: str, state: str, zip_code: str) -> StandardizedAddress:
        return cls(
            address_one=street,
            address_two=unit,
            city=city,
            state=state,
            zip_code=zip_code,
            Address1=unit or "",
            Address2=street,
            City=city,
            State=state,
            Zip5=zip_code,
            Zip4="",  # the ZIP data has no ZIP+4 ranges: only USPS's own lookup knows them
        )


CITY_STATE = CityState(zip_code="30303", city="ATLANTA", state="GA")
STANDARDIZED = StandardizedAddress.of(street="12 MAIN ST", unit="APT 4B", city="ATLANTA", state="GA", zip_code="30303")


def zip_area(zip_code: str) -> ZipArea | None:
    """The ZIP code's area; None for one USPS does not list (or no longer uses)."""
    return zip_index().area(zip_code)


def state_of_zip(zip_code: str) -> str | None:
    """The state of a ZIP code where the service is sold; None outside it (unknown, military or unique)."""
    area = zip_area(zip_code)
    return area.state if area is not None and area.served else None


def city_of_zip(zip_code: str) -> str:
    """The ZIP code's city as USPS names it; "" for a ZIP code it does not list."""
    area = zip_area(zip_code)
    return area.city if area is not None else ""


def outside_state(zip_code: str, state: str) -> str | None:
    """Why `zip_code` cannot be an address in `state` (it is unknown, or another state's); None when it can."""
    area = zip_area(zip_code)
    if area is None:
        return f"{zip_code} is not a US ZIP code"
    if area.state != state.upper():
        return f"{zip_code} is in {area.state}, not {state.upper()}"
    return None


def standardized(address: AddressValidationUsps) -> StandardizedAddress:
    """The address as USPS writes it; refused with why for an unknown ZIP, a ZIP of another state, a city that is
    not one of the ZIP's, or a first line that is not a house number and a street (a PO Box is not)."""
    zip_code, state, city = address.zip_code, address.state.upper(), address.city.upper()
    area = zip_area(zip_code)
    if area is None:
        raise refuse(INVALID_ZIP)
    if area.state != state:
        raise refuse(f"Zip code {zip_code} is in {area.state}, not {state}")
    if city not in area.cities:
        raise refuse(f"City {city} is not a city of zip code {zip_code} ({', '.join(sorted(area.cities))})")
    try:
        record = normalize_address_record(
            {
                "address_line_1": address.address_one,
                "address_line_2": address.address_two,
                "city": address.city,
                "state": area.state,
                "postal_code": zip_code,
            }
        )
    except AddressNormalizationError:
        raise refuse(UNREADABLE) from None
    line_two = record.get("address_line_2")
    return StandardizedAddress.of(
        street=str(record["address_line_1"]),
        unit=DESIGNATED_POUND.sub(r"\1 ", str(line_two)) if line_two else None,
        city=area.city,  # an accepted name becomes the preferred one, as USPS's own standardization answers
        state=area.state,
        zip_code=zip_code,
    )


@dataclass(frozen=True)
class ZipIndex:
    """Every active ZIP code in one block of bytes, as the index file holds it: a table of one 4-byte slot per
    five-digit code (the offset of its record after the table, plus one; 0 for a code USPS does not list), then one
    line per ZIP code, `STATE<TAB>KIND<TAB>CITY<TAB>OTHER CITY…`. A lookup reads its own record and nothing else."""

    data: bytes = field(repr=False)  # 1.4 MB

    def area(self, zip_code: str) -> ZipArea | None:
        if len(zip_code) != 5 or not (zip_code.isascii() and zip_code.isdigit()):
            return None
        (slot,) = SLOT.unpack_from(self.data, int(zip_code) * SLOT.size)
        if slot == 0:
            return None
        start = ZIP_CODES * SLOT.size + slot - 1
        state, kind, city, *others = self.data[start : self.data.index(b"\n", start)].decode().split("\t")
        return ZipArea(zip_code=zip_code, city=city, state=state, cities=frozenset({city, *others}), kind=kind)


@cache
def zip_index() -> ZipIndex:
    """This process's ZIP index, from the data dir (LINEUP_DATA_DIR); built there first if no process has yet. The
    API reads it before it serves (api.main's lifespan); another process reads it on its first lookup."""
    return load_zip_index(get_settings().data_dir / "zips")


def load_zip_index(directory: Path) -> ZipIndex:
    """The index for the installed `zipcodes` package in `directory`. A missing one is built by a child process
    while this one waits (on the child and on a lock other processes building it hold: no GIL held meanwhile);
    where no file can be written there, it is built here, in memory, as every start did before."""
    path = directory / f"zipcodes-{version('zipcodes')}.v{INDEX_LAYOUT}.idx"
    try:
        if not path.exists():
            _build_in_child(path)
        return ZipIndex(path.read_bytes())
    except (OSError, subprocess.SubprocessError) as exc:
        log.warning("ZIP index: cannot build %s (%s); indexing the ZIP data in this process instead", path, exc)
        return ZipIndex(index_bytes())


def _build_in_child(path: Path) -> None:
    """Builds the index at `path` in a child process, one process at a time; the indexes of other versions of
    the package (or other layouts) are removed once this one is written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path.parent / "build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process building it: its file is ready once the lock is
        if path.exists():
            return
        command = [sys.executable, "-m", "models.address", str(path)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=BUILD_TIMEOUT_SECONDS)
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no output"])[-1]
            raise subprocess.SubprocessError(f"the index builder exited with {done.returncode}: {last}")
        for stale in path.parent.glob("zipcodes-*.idx"):
            if stale != path:
                stale.unlink(missing_ok=True)


def write_zip_index(path: Path) -> None:
    """Writes the index at `path` (a temporary file renamed into place: a reader sees a whole index or none)."""
    written = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    written.write_bytes(index_bytes())
    os.replace(written, path)


def index_bytes() -> bytes:
    """The ZipIndex of the `zipcodes` package's active ZIP codes. Imported here and only here: the package's
    records are built in one call that holds the GIL throughout."""
    import zipcodes

    records: dict[str, str] = {}
    # The package's Python face is unannotated (its typed stub covers the private extension): each member is
    # read through str() below.
    for record in zipcodes.list_all():  # type: ignore[no-untyped-call]
        if not record["active"]:  # retired by USPS: no address has it any more
            continue
        city = str(record["city"]).upper()
        others = sorted({str(name).upper() for name in record["acceptable_cities"]} - {city})
        fields = [str(record["state"]), str(record["zip_code_type"]), city, *others]
        assert not any(mark in value for value in fields for mark in "\t\n"), fields
        records[str(record["zip_code"])] = "\t".join(fields) + "\n"
    table = bytearray(ZIP_CODES * SLOT.size)
    text = bytearray()
    for zip_code, line in records.items():
        SLOT.pack_into(table, int(zip_code) * SLOT.size, len(text) + 1)
        text += line.encode()
    return bytes(table + text)


if __name__ == "__main__":  # the child load_zip_index starts: python -m models.address <index path>
    write_zip_index(Path(sys.argv[1]))
