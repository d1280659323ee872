"""The npm packages: `filebox` (the launcher, bin/filebox.js) and one `@filebox/cli-OS-CPU` per
platform carrying the binary, which `filebox` names as optional dependencies, each with its
os and cpu, so npm installs only the one that runs here (as esbuild, biome and codex do)."""

import json
import shutil
from pathlib import Path

from binary import Platform
from project import Project

# Every platform the `filebox` package knows; a build packages the binary of one of them.
PLATFORMS = ("linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64")
SCOPE = "@filebox"
HERE = Path(__file__).parent


def platform_package(platform: str) -> str:
    return f"{SCOPE}/cli-{platform}"


def common(project: Project) -> dict:
    return {
        "version": project.version,
        "license": project.license,
        "homepage": project.repository,
        "repository": {"type": "git", "url": f"git+{project.repository}.git"},
        "bugs": {"url": f"{project.repository}/issues"},
    }


def write(folder: Path, manifest: dict, project: Project) -> Path:
    folder.mkdir(parents=True)
    (folder / "package.json").write_text(json.dumps(manifest, indent=2) + "\n")
    shutil.copyfile(project.readme, folder / "README.md")
    shutil.copyfile(project.license_file, folder / "LICENSE")
    return folder


def launcher_package(project: Project, into: Path) -> Path:
    """`filebox`: bin/filebox.js, which runs the binary of this platform's package."""
    manifest = {
        "name": project.name,
        "description": project.description,
        **common(project),
        "keywords": ["mcp", "mcp-server", "agents", "mailbox", "claude-code", "codex"],
        "bin": {"filebox": "bin/filebox.js"},
        "files": ["bin/filebox.js"],
        "engines": {"node": ">=18"},
        "optionalDependencies": {platform_package(p): project.version for p in PLATFORMS},
    }
    folder = write(into / project.name, manifest, project)
    (folder / "bin").mkdir()
    launcher = folder / "bin/filebox.js"
    shutil.copyfile(HERE / "npm/filebox.js", launcher)
    launcher.chmod(0o755)
    return folder


def binary_package(project: Project, platform: Platform, binary: Path, into: Path) -> Path:
    """`@filebox/cli-OS-CPU`: bin/filebox, installed only where os, cpu (and libc) match."""
    manifest = {
        "name": platform_package(platform.name),
        "description": f"The filebox binary for {platform.os} {platform.cpu}, run by the filebox package",
        **common(project),
        "os": [platform.os],
        "cpu": [platform.cpu],
        **({"libc": [platform.libc]} if platform.libc else {}),
        "files": ["bin/filebox"],
        # Yarn's Plug'n'Play must unpack a package whose file is executed.
        "preferUnplugged": True,
        # A scoped package is published private unless it says otherwise.
        "publishConfig": {"access": "public"},
    }
    folder = write(into / f"cli-{platform.name}", manifest, project)
    (folder / "bin").mkdir()
    shutil.copyfile(binary, folder / "bin/filebox")
    (folder / "bin/filebox").chmod(0o755)
    return folder
