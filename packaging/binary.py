"""The platform a built filebox binary runs on, read from its own header (ELF or Mach-O), and
the newest glibc symbol version it needs, which names its manylinux tag."""

import re
import struct
from dataclasses import dataclass
from pathlib import Path

# ELF e_machine and Mach-O cputype values, to npm's `cpu` names.
ELF_MACHINES = {0x3E: "x64", 0xB7: "arm64"}
MACHO_CPUS = {0x01000007: "x64", 0x0100000C: "arm64"}
# npm's cpu names to the wheel tags' machine names.
WHEEL_MACHINES = {"x64": "x86_64", "arm64": "aarch64"}


@dataclass(frozen=True)
class Platform:
    os: str  # npm's name: linux, darwin
    cpu: str  # npm's name: x64, arm64
    libc: str | None  # "glibc" or "musl" for a dynamically linked Linux binary, else None
    glibc_minor: int  # the newest GLIBC_2.N the binary needs (0 when none)

    @property
    def name(self) -> str:
        return f"{self.os}-{self.cpu}"

    def wheel_tag(self) -> str:
        """The wheel's platform tag: where pip and uv may install this binary."""
        if self.os == "darwin":
            # Rust's default deployment targets: macOS 10.12 on Intel, 11.0 on Apple silicon.
            return "macosx_11_0_arm64" if self.cpu == "arm64" else "macosx_10_12_x86_64"
        machine = WHEEL_MACHINES[self.cpu]
        musl = f"musllinux_1_2_{machine}"
        if self.libc == "musl":
            return musl
        # manylinux_2_17 is the oldest policy for aarch64 and what Rust's targets support.
        glibc = f"manylinux_2_{max(17, self.glibc_minor)}_{machine}"
        return glibc if self.libc == "glibc" else f"{glibc}.{musl}"


def read(path: Path) -> Platform:
    data = path.read_bytes()
    if data[:4] == b"\x7fELF":
        if data[4] != 2 or data[5] != 1:
            raise SystemExit(f"{path}: not a 64-bit little-endian ELF binary")
        (machine,) = struct.unpack_from("<H", data, 18)
        cpu = ELF_MACHINES.get(machine)
        if cpu is None:
            raise SystemExit(f"{path}: an ELF binary for machine {machine:#x}, not x86-64 or aarch64")
        # The version strings glibc's symbols are bound to (.gnu.version_r names them).
        minors = [int(m) for m in re.findall(rb"GLIBC_2\.(\d+)", data)]
        libc = "glibc" if minors else ("musl" if b"ld-musl-" in data else None)
        return Platform("linux", cpu, libc, max(minors, default=0))
    if data[:4] == b"\xcf\xfa\xed\xfe":
        (cputype,) = struct.unpack_from("<i", data, 4)
        cpu = MACHO_CPUS.get(cputype)
        if cpu is None:
            raise SystemExit(f"{path}: a Mach-O binary for cpu type {cputype:#x}, not x86-64 or arm64")
        return Platform("darwin", cpu, None, 0)
    if data[:4] in (b"\xca\xfe\xba\xbe", b"\xbe\xba\xfe\xca"):
        raise SystemExit(f"{path}: a universal macOS binary: give one architecture's (lipo -thin)")
    raise SystemExit(f"{path}: neither an ELF nor a Mach-O binary: give the built filebox")
