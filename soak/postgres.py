"""The soak's own PostgreSQL server (issue 27): a cluster made with Debian's `initdb` under the soak's data dir, its
`postgres` run on a free port of 127.0.0.1 under a restart loop like every other process, so the kill rotation
can SIGKILL it and watch Lineup ride through the restart. The soak never restarts a server it did not start: the
shared one on 5432 (or any given with `--postgres`) is only used, and then left out of the rotation.

PostgreSQL refuses to run as root: as root, the cluster belongs to the `postgres` user and its programs run as
it (`setpriv`, which execs in place, so the restart loop's process is the server itself)."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from bench.ports import free_port

OWNER = "postgres"  # Debian's postgresql package's user


def binaries() -> Path:
    """The newest installed PostgreSQL's bin directory (Debian keeps each major version apart)."""
    found = sorted(Path("/usr/lib/postgresql").glob("*/bin/postgres"), key=lambda path: int(path.parts[-3]))
    if not found:
        raise RuntimeError("PostgreSQL's server is not installed (Debian: apt-get install postgresql)")
    return found[-1].parent


def _as_owner(command: list[str]) -> list[str]:
    if os.geteuid() != 0:
        return command
    return ["setpriv", f"--reuid={OWNER}", f"--regid={OWNER}", "--init-groups", *command]


@dataclass(frozen=True)
class Cluster:
    directory: Path
    port: int

    @property
    def admin_url(self) -> str:
        return f"postgresql://{OWNER}@127.0.0.1:{self.port}/postgres"

    def command(self) -> list[str]:
        """The server in the foreground (what the restart loop runs and the rotation SIGKILLs)."""
        server = [str(binaries() / "postgres"), "-D", str(self.directory / "data"), "-p", str(self.port)]
        settings = ["-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={self.directory}"]
        return _as_owner([*server, *settings, "-c", "max_connections=200"])


def create(data_dir: Path) -> Cluster:
    """A new cluster under `data_dir/postgres` (trust authentication on 127.0.0.1: the soak's own, for one run)."""
    directory = data_dir / "postgres"
    directory.mkdir(parents=True)
    if os.geteuid() == 0:
        owner = pwd.getpwnam(OWNER)
        shutil.chown(directory, owner.pw_uid, owner.pw_gid)
    initdb = [str(binaries() / "initdb"), "-D", str(directory / "data"), "-U", OWNER, "--auth=trust", "-E", "UTF8"]
    with open(data_dir / "logs" / "postgres-initdb.log", "ab") as log:
        subprocess.run(_as_owner([*initdb, "--no-sync"]), stdout=log, stderr=log, check=True)
    return Cluster(directory, free_port())
