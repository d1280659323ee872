"""Lays out the npm packages and builds the wheel for one built filebox binary (run by
scripts/package, which then packs the npm folders): OUT/npm/filebox/, OUT/npm/cli-OS-CPU/ and
OUT/python/filebox-V-py3-none-TAG.whl, each replaced whole on every run."""

import shutil
import sys
from pathlib import Path

import binary
import npm
import project
import wheel


def main(built: Path, out: Path) -> None:
    if not built.is_file():
        raise SystemExit(f"{built}: no such binary (cargo build --release -p filebox)")
    platform = binary.read(built)
    if platform.name not in npm.PLATFORMS:
        raise SystemExit(f"{built}: a {platform.name} binary; the packages know {', '.join(npm.PLATFORMS)}")
    meta = project.load()
    for made in ("npm", "python"):
        shutil.rmtree(out / made, ignore_errors=True)
    npm.launcher_package(meta, out / "npm")
    npm.binary_package(meta, platform, built, out / "npm")
    print(wheel.build(meta, platform, built, out / "python"))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: packaging/package.py BINARY OUT")
    main(Path(sys.argv[1]), Path(sys.argv[2]))
