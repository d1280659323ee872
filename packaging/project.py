"""What every package says about FileBox, from Cargo.toml: name, version, description, license
and repository, and the README and LICENSE each package carries."""

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Project:
    name: str
    version: str  # Cargo's (SemVer), as npm takes it
    description: str
    license: str
    repository: str
    readme: Path
    license_file: Path

    @property
    def python_version(self) -> str:
        """The version in PEP 440's form: 1.2.0-rc.1 is 1.2.0rc1."""
        release, _, pre = self.version.partition("-")
        if not pre:
            return release
        match = re.fullmatch(r"(alpha|beta|rc)\.?(\d+)", pre)
        if match is None:
            raise SystemExit(
                f"version {self.version}: only -alpha.N, -beta.N and -rc.N have a PEP 440 form; "
                "change the version in Cargo.toml"
            )
        kind = {"alpha": "a", "beta": "b", "rc": "rc"}[match[1]]
        return f"{release}{kind}{match[2]}"


def load() -> Project:
    workspace = tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["package"]
    crate = tomllib.loads((ROOT / "crates/filebox/Cargo.toml").read_text())["package"]
    missing = [key for key in ("version", "license", "repository") if key not in workspace]
    if missing or "description" not in crate:
        raise SystemExit(
            f"Cargo.toml: [workspace.package] needs {', '.join(missing)} and "
            "crates/filebox/Cargo.toml a description: every package carries them"
        )
    return Project(
        name=crate["name"],
        version=workspace["version"],
        description=crate["description"],
        license=workspace["license"],
        repository=workspace["repository"].removesuffix("/"),
        readme=ROOT / "packaging/README.md",
        license_file=ROOT / "packaging/LICENSE",
    )
