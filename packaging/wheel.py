"""The PyPI wheel, assembled around the already built binary: `filebox-V.data/scripts/filebox`,
which pip, pipx and uv install as the environment's `filebox` executable, and the dist-info
(METADATA, WHEEL with the binary's platform tag, RECORD with every file's hash). The layout is
maturin's `bindings = "bin"`, without the second cargo build maturin would run."""

import base64
import hashlib
import zipfile
from pathlib import Path

from binary import Platform
from project import Project

# A fixed timestamp for every member, so the same binary gives the same wheel byte for byte.
EPOCH = (1980, 1, 1, 0, 0, 0)


def metadata(project: Project) -> str:
    headers = [
        ("Metadata-Version", "2.1"),
        ("Name", project.name),
        ("Version", project.python_version),
        ("Summary", project.description),
        ("Home-page", project.repository),
        ("License", project.license),
        ("Project-URL", f"Source, {project.repository}"),
        ("Project-URL", f"Issues, {project.repository}/issues"),
        ("Keywords", "mcp,agents,mailbox,claude-code,codex"),
        ("Classifier", "Environment :: Console"),
        ("Classifier", "License :: OSI Approved :: MIT License"),
        ("Classifier", "Programming Language :: Rust"),
        ("Requires-Python", ">=3.8"),
        ("Description-Content-Type", "text/markdown"),
    ]
    head = "".join(f"{key}: {value}\n" for key, value in headers)
    return f"{head}\n{project.readme.read_text()}"


def record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}\n"


def build(project: Project, platform: Platform, binary: Path, into: Path) -> Path:
    version = project.python_version
    tag = f"py3-none-{platform.wheel_tag()}"
    data = f"{project.name}-{version}.data"
    info = f"{project.name}-{version}.dist-info"
    wheel = "".join(
        f"{line}\n"
        for line in [
            "Wheel-Version: 1.0",
            "Generator: filebox scripts/package",
            "Root-Is-Purelib: false",
            *(f"Tag: py3-none-{one}" for one in platform.wheel_tag().split(".")),
        ]
    )
    members = [
        (f"{data}/scripts/{project.name}", binary.read_bytes(), 0o755),
        (f"{info}/METADATA", metadata(project).encode(), 0o644),
        (f"{info}/WHEEL", wheel.encode(), 0o644),
        (f"{info}/LICENSE", project.license_file.read_bytes(), 0o644),
    ]
    record = "".join(record_line(name, content) for name, content, _ in members)
    members.append((f"{info}/RECORD", f"{record}{info}/RECORD,,\n".encode(), 0o644))

    into.mkdir(parents=True)
    path = into / f"{project.name}-{version}-{tag}.whl"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content, mode in members:
            member = zipfile.ZipInfo(name, EPOCH)
            # The mode in the high bits: pip and uv make a script executable from it.
            member.external_attr = (0o100000 | mode) << 16
            member.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(member, content)
    return path
