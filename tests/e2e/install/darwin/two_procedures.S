// The shape of aws-lc's s2n-bignum assembly (p384_montjscalarmul.S among
// others) that made zig 0.15's Mach-O linker crash (SIGSEGV, no message)
// when it linked the provider for macOS: one global symbol whose section
// holds two CFI procedures, the second starting at a local label, so one
// atom carries two unwind records (no .subsections_via_symbols).
// tests/e2e/install/release_check.rs links it as an executable for both
// macOS targets with the zig scripts/install-release-tools pins.
        .text
        .globl  _main
#if defined(__aarch64__)
        .p2align 2
_main:
        .cfi_startproc
        stp     x29, x30, [sp, #-16]!
        .cfi_adjust_cfa_offset 16
        bl      Lleaf
        ldp     x29, x30, [sp], #16
        .cfi_adjust_cfa_offset -16
        ret
        .cfi_endproc
Lleaf:
        .cfi_startproc
        mov     x0, #0
        ret
        .cfi_endproc
#elif defined(__x86_64__)
        .p2align 4
_main:
        .cfi_startproc
        pushq   %rbp
        .cfi_adjust_cfa_offset 8
        callq   Lleaf
        popq    %rbp
        .cfi_adjust_cfa_offset -8
        retq
        .cfi_endproc
Lleaf:
        .cfi_startproc
        xorl    %eax, %eax
        retq
        .cfi_endproc
#else
#error "aarch64 or x86_64 only"
#endif
