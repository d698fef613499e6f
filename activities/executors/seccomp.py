"""The sandbox's seccomp filter: system calls an agent never needs, refused with EPERM (bubblewrap `--seccomp`).

Kernel interfaces bubblewrap leaves open: the kernel keyrings (an agent would share the worker's session keyring),
eBPF, perf events and userfaultfd (each a known route to kernel exploits), a nested user namespace (`unshare` or
`clone` with CLONE_NEWUSER: every capability inside it; `clone3`, whose flags a filter cannot read, answers ENOSYS
so the C library falls back to `clone`, as Flatpak does), and on x86-64 the x32 system call ABI (the same calls
under other numbers). bubblewrap's own `--disable-userns` would do the namespace part, but it puts the agent in a
nested user namespace of its own, where a forwarded provider on a low port can no longer be bound.
Only the machine's own architecture is filtered; on another the filter
allows everything, as it cannot name that architecture's calls.
"""

import errno
import platform
import struct

# BPF instructions (linux/filter.h, linux/seccomp.h)
LD_W_ABS, JEQ_K, JGE_K, JSET_K, RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
RET_ALLOW, RET_ERRNO = 0x7FFF0000, 0x00050000
ARCH_OFFSET, NR_OFFSET, ARG0_OFFSET = 4, 0, 16  # struct seccomp_data: nr, arch, ip, args[0] (its low word)
X32_SYSCALL_BIT = 0x40000000
CLONE_NEWUSER = 0x10000000

REFUSED = ("add_key", "request_key", "keyctl", "bpf", "perf_event_open", "userfaultfd")
SYSCALLS = {
    "x86_64": (0xC000003E, {"add_key": 248, "request_key": 249, "keyctl": 250, "bpf": 321, "perf_event_open": 298,
                            "userfaultfd": 323, "clone": 56, "unshare": 272, "clone3": 435}),
    "aarch64": (0xC00000B7, {"add_key": 217, "request_key": 218, "keyctl": 219, "bpf": 280, "perf_event_open": 241,
                             "userfaultfd": 282, "clone": 220, "unshare": 97, "clone3": 435}),
}  # fmt: skip


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def program(machine: str | None = None) -> bytes | None:
    """The compiled filter for this machine, or None where its system call numbers are not known here."""
    known = SYSCALLS.get(machine or platform.machine())
    if known is None:
        return None
    arch, numbers = known
    refuse = RET_ERRNO | errno.EPERM
    ops = [_op(LD_W_ABS, ARCH_OFFSET), _op(JEQ_K, arch, jt=1), _op(RET_K, RET_ALLOW), _op(LD_W_ABS, NR_OFFSET)]
    if arch == SYSCALLS["x86_64"][0]:
        ops += [_op(JGE_K, X32_SYSCALL_BIT, jf=1), _op(RET_K, refuse)]
    for name in REFUSED:
        ops += [_op(JEQ_K, numbers[name], jf=1), _op(RET_K, refuse)]
    ops += [_op(JEQ_K, numbers["clone3"], jf=1), _op(RET_K, RET_ERRNO | errno.ENOSYS)]
    ops += [_op(JEQ_K, numbers["unshare"], jt=2), _op(JEQ_K, numbers["clone"], jt=1), _op(RET_K, RET_ALLOW)]
    ops += [_op(LD_W_ABS, ARG0_OFFSET), _op(JSET_K, CLONE_NEWUSER, jf=1), _op(RET_K, refuse)]
    return b"".join([*ops, _op(RET_K, RET_ALLOW)])
