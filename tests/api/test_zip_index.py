"""The ZIP data a process reads (issue 35, finding 8): every API process indexed the `zipcodes` package's 42,000
records as it started, and the package builds them in one call that holds the GIL (half a second idle, 6.9 s on
the soak's busy machine), long enough for uvicorn's health check to kill the process. The index is now one compact
file of the data dir, written by a child process once per version of the package and read whole in a millisecond;
no serving process imports the package. Its answers are the package's, for every five-digit code."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
import zipcodes

from models import address
from models.address import ZipArea, load_zip_index
from tests.support.keys import TEST_ENCRYPTION_KEY

REPO = Path(__file__).resolve().parents[2]
READ_CPU_SECONDS = 0.05  # reading the index; indexing the package took 0.8 s of CPU on the same machine
INDEX = f"zipcodes-{version('zipcodes')}.v{address.INDEX_LAYOUT}.idx"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir whose ZIP index a first process has built."""
    data_dir = tmp_path_factory.mktemp("zips")
    load_zip_index(data_dir / "zips")
    return data_dir


def in_a_fresh_process(data_dir: Path, script: str) -> dict[str, object]:
    """What `script` (ending with a JSON line) says, run by a new process whose data dir is `data_dir`."""
    env = {"LINEUP_DATA_DIR": str(data_dir), "LINEUP_ENCRYPTION_KEY": TEST_ENCRYPTION_KEY, "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, env=env, capture_output=True, text=True, check=True)
    found: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    return found


def areas_of_the_package() -> dict[str, ZipArea]:
    """The package's active ZIP codes as Lineup reads them: the city and every accepted name in capitals."""
    areas = {}
    for record in zipcodes.list_all():
        if record["active"]:
            city = record["city"].upper()
            cities = frozenset({city, *(name.upper() for name in record["acceptable_cities"])})
            kind = record["zip_code_type"]
            areas[record["zip_code"]] = ZipArea(record["zip_code"], city, record["state"], cities, kind)
    return areas


def test_the_index_answers_as_the_package_for_every_five_digit_code(built):
    index = load_zip_index(built / "zips")
    expected = areas_of_the_package()
    found = {code: area for n in range(100_000) if (area := index.area(code := f"{n:05d}")) is not None}
    assert found == expected
    assert len(found) > 40_000


@pytest.mark.parametrize("code", ["", "3030", "303030", "3030a", "٣٠٣٠٣", "²0303", " 3030"])
def test_what_is_not_five_ascii_digits_has_no_area(built, code):
    assert load_zip_index(built / "zips").area(code) is None


def test_importing_the_address_module_loads_no_zip_data(built):
    said = in_a_fresh_process(
        built, "import json, sys, models.address; print(json.dumps({'loaded': 'zipcodes' in sys.modules}))"
    )
    assert said == {"loaded": False}


def test_a_process_reads_the_built_index_in_milliseconds_without_the_package(built):
    said = in_a_fresh_process(
        built,
        "import json, sys, time\n"
        "from models.address import city_of_zip, state_of_zip\n"
        "started = time.thread_time()\n"
        "answers = [city_of_zip('30303'), state_of_zip('09012'), state_of_zip('00000')]\n"
        "cpu = time.thread_time() - started\n"
        "print(json.dumps({'answers': answers, 'cpu': cpu, 'loaded': 'zipcodes' in sys.modules}))\n",
    )
    assert said["answers"] == ["ATLANTA", None, None]  # 09012 is military mail: not sold there
    assert said["loaded"] is False
    assert isinstance(said["cpu"], float) and said["cpu"] < READ_CPU_SECONDS


def test_the_first_process_builds_the_index_in_a_child_and_never_holds_the_package(tmp_path):
    said = in_a_fresh_process(
        tmp_path,
        "import json, sys\n"
        "from models.address import city_of_zip\n"
        "print(json.dumps({'city': city_of_zip('90001'), 'loaded': 'zipcodes' in sys.modules}))\n",
    )
    assert said == {"city": "LOS ANGELES", "loaded": False}
    assert sorted(path.name for path in (tmp_path / "zips").iterdir()) == ["build.lock", INDEX]


def test_another_version_of_the_package_gets_its_own_index_and_the_old_one_goes(built, tmp_path, monkeypatch):
    directory = tmp_path / "zips"
    directory.mkdir()
    (directory / INDEX).write_bytes((built / "zips" / INDEX).read_bytes())
    monkeypatch.setattr(address, "version", lambda package: "9.9.9")  # `pip install -U zipcodes`
    index = load_zip_index(directory)
    assert sorted(path.name for path in directory.iterdir()) == [
        "build.lock",
        f"zipcodes-9.9.9.v{address.INDEX_LAYOUT}.idx",
    ]
    assert index.area("30303") == ZipArea("30303", "ATLANTA", "GA", frozenset({"ATLANTA"}), "STANDARD")


def test_a_data_dir_that_cannot_hold_the_index_still_answers_with_one_log_line(tmp_path, caplog):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    with caplog.at_level(logging.WARNING, logger="lineup.address"):
        index = load_zip_index(blocked / "zips")
    assert index.area("00601") == ZipArea("00601", "ADJUNTAS", "PR", frozenset({"ADJUNTAS"}), "STANDARD")
    [line] = caplog.records
    assert line.getMessage().startswith(f"ZIP index: cannot build {blocked / 'zips' / INDEX} (")
