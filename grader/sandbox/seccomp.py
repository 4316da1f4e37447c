"""A seccomp filter that refuses the ways to hold memory outside a kernel's address space.

Without a cgroup, a kernel's memory is limited as address space (`prlimit --as`), and a
memfd (`memfd_create`) or System V shared memory (`shmget`) holds pages that no
address space counts: 3 GiB were held that way as an ordinary user. Where no cgroup
counts them, bubblewrap loads this filter (`--seccomp FD`), and those calls fail with
EPERM (Python: PermissionError) instead. Every other call is allowed.

The filter is classic BPF, as `seccomp_export_bpf` writes it: an array of
`struct sock_filter {u16 code; u8 jt; u8 jf; u32 k}`. It knows x86-64 (and refuses
its x32 calls) and arm64; on another architecture it allows everything, and
`covers()` says so.
"""
import platform
import struct

LOAD = 0x20          # BPF_LD | BPF_W | BPF_ABS: load a word of struct seccomp_data
JUMP_IF_EQUAL = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
JUMP_IF_AT_LEAST = 0x35  # BPF_JMP | BPF_JGE | BPF_K
RETURN = 0x06        # BPF_RET | BPF_K
ALLOW = 0x7FFF0000   # SECCOMP_RET_ALLOW
REFUSE = 0x00050000 | 1  # SECCOMP_RET_ERRNO | EPERM
NUMBER, ARCHITECTURE = 0, 4  # offsets in struct seccomp_data
X32 = 0x40000000     # x86-64's x32 calls: the same calls under other numbers

# architecture (audit number) -> (memfd_create, shmget, memfd_secret), refuses x32
REFUSED = {
    "x86_64": (0xC000003E, (319, 29, 447), True),
    "aarch64": (0xC00000B7, (279, 194, 447), False),
}


def covers():
    """Whether this machine's architecture is one the filter knows."""
    return platform.machine() in REFUSED


def program():
    """The filter's bytes."""
    code = []  # [code, jump-if-true label, jump-if-false label, k]
    for audit, numbers, x32 in REFUSED.values():
        end = f"after {audit}"
        code += [[LOAD, None, None, ARCHITECTURE], [JUMP_IF_EQUAL, None, end, audit],
                 [LOAD, None, None, NUMBER]]
        if x32:
            code.append([JUMP_IF_AT_LEAST, "refuse", None, X32])
        code += [[JUMP_IF_EQUAL, "refuse", None, number] for number in numbers]
        code += [[RETURN, None, None, ALLOW], end]
    code += [[RETURN, None, None, ALLOW], "refuse", [RETURN, None, None, REFUSE]]
    labels, instructions = {}, []
    for item in code:
        if isinstance(item, str):
            labels[item] = len(instructions)
        else:
            instructions.append(item)
    out = b""
    for index, (op, true, false, k) in enumerate(instructions):
        # a jump counts the instructions it skips after this one
        jt = labels[true] - index - 1 if true else 0
        jf = labels[false] - index - 1 if false else 0
        out += struct.pack("=HBBI", op, jt, jf, k)
    return out
